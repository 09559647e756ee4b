package com.example.orders;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.springframework.http.HttpStatus;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.CheckoutView;

/**
 * {@code GET /api/checkout?productId=2&delayMs=20}: places an order of one
 * item in one transaction that also waits {@code delayMs} for a payment
 * provider (a blocking call, simulated with {@link Thread#sleep}) between
 * reading the product and saving the order. The transaction holds its
 * database connection through the wait, as a remote call inside
 * {@code @Transactional} does in many real services: with a pool of
 * {@code n} connections no thread model serves more than
 * {@code n ÷ delayMs} checkouts a second, and the requests beyond that wait
 * for a connection (HikariCP's pending count).
 */
@RestController
class CheckoutController {

	static final long MAX_DELAY_MS = 5000;

	private final ProductRepository products;

	private final OrderRepository orders;

	private final TransactionTemplate transaction;

	private final Clock clock = Clock.systemUTC();

	CheckoutController(ProductRepository products, OrderRepository orders, PlatformTransactionManager transactions) {
		this.products = products;
		this.orders = orders;
		this.transaction = new TransactionTemplate(transactions);
	}

	@GetMapping("/api/checkout")
	CheckoutView checkout(@RequestParam long productId, @RequestParam(defaultValue = "20") long delayMs) {
		if (delayMs < 0 || delayMs > MAX_DELAY_MS) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "delayMs must be between 0 and " + MAX_DELAY_MS);
		}
		Order saved = transaction.execute(status -> {
			Product product = products.findById(productId)
				.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no product " + productId));
			paymentProvider(delayMs);
			return orders.save(new Order(product, 1, clock.instant().truncatedTo(ChronoUnit.MICROS)));
		});
		Thread current = Thread.currentThread();
		return new CheckoutView(saved.getId(), saved.getProductId(), delayMs, current.isVirtual(), current.getName());
	}

	/** Stands in for a blocking call to a payment provider. */
	private static void paymentProvider(long delayMs) {
		try {
			Thread.sleep(delayMs);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while waiting for the payment provider", e);
		}
	}

}
