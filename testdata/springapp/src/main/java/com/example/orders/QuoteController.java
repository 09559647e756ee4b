package com.example.orders;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.QuoteView;

/**
 * {@code GET /api/quote?productId=1&delayMs=50}: a price quote that first waits
 * on a slow downstream (a blocking call, simulated with {@link Thread#sleep})
 * and then reads the product. This is where the thread models differ: on
 * platform threads each waiting request holds one of Tomcat's (at most 200)
 * worker threads; on virtual threads it holds only a virtual thread.
 * <p>
 * No transaction spans the wait (spring.jpa.open-in-view=false and no
 * {@code @Transactional} here), so a waiting request holds no database connection.
 */
@RestController
class QuoteController {

	static final long MAX_DELAY_MS = 5000;

	private final ProductRepository products;

	/**
	 * How much longer every quote waits, fixed by the build
	 * (orders.quote-extra-delay-ms: 0, or 50 in target/orders-slower.jar): two
	 * builds of one service, one endpoint apart.
	 */
	private final long extraDelayMs;

	QuoteController(ProductRepository products, @Value("${orders.quote-extra-delay-ms:0}") long extraDelayMs) {
		this.products = products;
		this.extraDelayMs = extraDelayMs;
	}

	@GetMapping("/api/quote")
	QuoteView quote(@RequestParam long productId, @RequestParam(defaultValue = "50") long delayMs)
			throws InterruptedException {
		if (delayMs < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "delayMs must not be negative");
		}
		long delay = Math.min(delayMs, MAX_DELAY_MS);
		slowDownstream(delay + extraDelayMs);
		Product product = products.findById(productId)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no product " + productId));
		Thread current = Thread.currentThread();
		return new QuoteView(product.getId(), product.getName(), product.getPrice(), delay, current.isVirtual(),
				current.getName());
	}

	/** Stands in for a blocking call to a slow service (HTTP, RPC, a slow query). */
	private static void slowDownstream(long delayMs) throws InterruptedException {
		if (delayMs > 0) {
			Thread.sleep(delayMs);
		}
	}

}
