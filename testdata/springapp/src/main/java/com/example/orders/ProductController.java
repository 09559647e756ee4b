package com.example.orders;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.ProductView;

@RestController
@RequestMapping("/api/products")
class ProductController {

	private final ProductRepository products;

	ProductController(ProductRepository products) {
		this.products = products;
	}

	@GetMapping
	List<ProductView> all() {
		return products.findAllByOrderByIdAsc().stream().map(ProductView::of).toList();
	}

	@GetMapping("/{id}")
	ProductView one(@PathVariable long id) {
		return products.findById(id)
			.map(ProductView::of)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no product " + id));
	}

}
