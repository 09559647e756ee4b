package com.example.orders;

import java.sql.DatabaseMetaData;
import java.util.List;
import java.util.Locale;

import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.SalesLine;
import com.example.orders.Dtos.SalesReport;

/**
 * {@code GET /api/reports/sales?dbMs=30}: the orders per product, by a query
 * that first spends {@code dbMs} in the database server (0 to 5000; 400
 * outside), as a slow report does: {@code pg_sleep} on PostgreSQL,
 * {@code SLEEP} on MySQL and MariaDB; H2 has no such function and answers
 * at once. The request's thread waits for the server's answer on the
 * driver's socket: a driver that reads it inside {@code synchronized}
 * (MySQL Connector/J before 9.0) pins a virtual thread's carrier for the
 * whole wait on JDK 21 to 23.
 */
@RestController
class ReportController {

	static final long MAX_DB_MS = 5000;

	private final JdbcTemplate jdbc;

	private final String product;

	ReportController(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		this.product = jdbc.execute((java.sql.Connection c) -> {
			DatabaseMetaData meta = c.getMetaData();
			return meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
		});
	}

	@GetMapping("/api/reports/sales")
	SalesReport sales(@RequestParam(defaultValue = "30") long dbMs) {
		if (dbMs < 0 || dbMs > MAX_DB_MS) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "dbMs must be between 0 and " + MAX_DB_MS);
		}
		String wait = waitSql();
		if (wait != null && dbMs > 0) {
			jdbc.query(wait, rs -> {
			}, dbMs / 1000.0);
		}
		List<SalesLine> lines = jdbc.query(
				"SELECT product_id, COUNT(*), COALESCE(SUM(quantity), 0) FROM orders GROUP BY product_id ORDER BY product_id",
				(rs, i) -> new SalesLine(rs.getLong(1), rs.getLong(2), rs.getLong(3)));
		Thread current = Thread.currentThread();
		return new SalesReport(lines, product, dbMs, current.isVirtual(), current.getName());
	}

	/** waitSql spends its one argument, in seconds, in the server; null where the server cannot. */
	private String waitSql() {
		if (product.contains("postgres")) {
			return "SELECT pg_sleep(?)";
		}
		if (product.contains("mysql") || product.contains("mariadb")) {
			return "SELECT SLEEP(?)";
		}
		return null;
	}

}
