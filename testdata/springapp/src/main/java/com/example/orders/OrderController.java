package com.example.orders;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.OrderRequest;
import com.example.orders.Dtos.OrderView;

@RestController
@RequestMapping("/api/orders")
class OrderController {

	static final int MAX_QUANTITY = 1000;

	private final ProductRepository products;

	private final OrderRepository orders;

	// Microseconds: what H2's TIMESTAMP keeps, so POST and GET show the same createdAt.
	private final Clock clock = Clock.systemUTC();

	OrderController(ProductRepository products, OrderRepository orders) {
		this.products = products;
		this.orders = orders;
	}

	/**
	 * Places an order: 201 with the order and its Location, or 400 when the
	 * body is not JSON, lacks a field, has a quantity out of 1..1000, or names
	 * no product.
	 */
	@PostMapping
	ResponseEntity<OrderView> place(@RequestBody OrderRequest request) {
		if (request.productId() == null) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "productId is required");
		}
		if (request.quantity() == null || request.quantity() < 1 || request.quantity() > MAX_QUANTITY) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"quantity must be between 1 and " + MAX_QUANTITY);
		}
		Product product = products.findById(request.productId())
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"no product " + request.productId()));
		Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
		Order saved = orders.save(new Order(product, request.quantity(), now));
		return ResponseEntity.created(URI.create("/api/orders/" + saved.getId())).body(OrderView.of(saved));
	}

	@GetMapping("/{id}")
	OrderView one(@PathVariable long id) {
		return orders.findById(id)
			.map(OrderView::of)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no order " + id));
	}

}
