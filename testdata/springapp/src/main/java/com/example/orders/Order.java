package com.example.orders;

import java.math.BigDecimal;
import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An order for one product. The product's name and price are copied in when
 * the order is placed, as orders usually keep what was sold at what price.
 * The entity and table are not called "Order": ORDER is a keyword in SQL and JPQL.
 */
@Entity(name = "CustomerOrder")
@Table(name = "orders")
public class Order {

	@Id
	@GeneratedValue(strategy = GenerationType.IDENTITY)
	private Long id;

	@Column(name = "product_id", nullable = false)
	private Long productId;

	@Column(name = "product_name", nullable = false, length = 100)
	private String productName;

	@Column(nullable = false)
	private int quantity;

	@Column(name = "unit_price", nullable = false, precision = 10, scale = 2)
	private BigDecimal unitPrice;

	@Column(nullable = false, precision = 12, scale = 2)
	private BigDecimal total;

	@Column(name = "created_at", nullable = false)
	private Instant createdAt;

	protected Order() {
	}

	public Order(Product product, int quantity, Instant createdAt) {
		this.productId = product.getId();
		this.productName = product.getName();
		this.quantity = quantity;
		this.unitPrice = product.getPrice();
		this.total = product.getPrice().multiply(BigDecimal.valueOf(quantity));
		this.createdAt = createdAt;
	}

	public Long getId() {
		return id;
	}

	public Long getProductId() {
		return productId;
	}

	public String getProductName() {
		return productName;
	}

	public int getQuantity() {
		return quantity;
	}

	public BigDecimal getUnitPrice() {
		return unitPrice;
	}

	public BigDecimal getTotal() {
		return total;
	}

	public Instant getCreatedAt() {
		return createdAt;
	}

}
