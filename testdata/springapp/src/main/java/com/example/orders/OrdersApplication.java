package com.example.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small orders service: products and orders in JPA on an in-memory H2
 * database, plus {@code /api/quote}, which waits on a slow "downstream" before
 * it reads the database. Whether requests run on Tomcat's platform-thread pool
 * or on virtual threads is up to {@code spring.threads.virtual.enabled}
 * (env SPRING_THREADS_VIRTUAL_ENABLED); nothing here depends on it.
 */
@SpringBootApplication
public class OrdersApplication {

	public static void main(String[] args) {
		SpringApplication.run(OrdersApplication.class, args);
	}

}
