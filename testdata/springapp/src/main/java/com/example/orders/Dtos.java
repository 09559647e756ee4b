package com.example.orders;

import java.math.BigDecimal;
import java.time.Instant;

/** The JSON the API takes and gives; entities never leave the service. */
final class Dtos {

	private Dtos() {
	}

	record ProductView(Long id, String sku, String name, BigDecimal price, int stock) {

		static ProductView of(Product p) {
			return new ProductView(p.getId(), p.getSku(), p.getName(), p.getPrice(), p.getStock());
		}

	}

	record OrderRequest(Long productId, Integer quantity) {
	}

	record OrderView(Long id, Long productId, String productName, int quantity, BigDecimal unitPrice,
			BigDecimal total, Instant createdAt) {

		static OrderView of(Order o) {
			return new OrderView(o.getId(), o.getProductId(), o.getProductName(), o.getQuantity(), o.getUnitPrice(),
					o.getTotal(), o.getCreatedAt());
		}

	}

	/**
	 * A price quote. {@code thread} and {@code virtual} say which kind of thread
	 * served the request, so a test can tell the two thread models apart.
	 */
	record QuoteView(Long productId, String name, BigDecimal price, long delayMs, boolean virtual, String thread) {
	}

	/** A checkout: the order it placed, and the thread that served it. */
	record CheckoutView(Long orderId, Long productId, long delayMs, boolean virtual, String thread) {
	}

	/** A product's line of the sales report. */
	record SalesLine(long productId, long orders, long quantity) {
	}

	/** The sales report: its lines, the database that made it, and the thread that served it. */
	record SalesReport(java.util.List<SalesLine> lines, String database, long dbMs, boolean virtual, String thread) {
	}

	/** A call through the legacy driver: the connection it used, and the thread that served it. */
	record LegacyView(int connection, long delayMs, boolean virtual, String thread) {
	}

}
