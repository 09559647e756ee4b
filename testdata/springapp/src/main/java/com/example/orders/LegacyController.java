package com.example.orders;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import com.example.orders.Dtos.LegacyView;

/**
 * {@code GET /api/legacy?delayMs=20}: one call through a {@link LegacyDriver},
 * which blocks inside {@code synchronized} for {@code delayMs}. This is the
 * endpoint where virtual threads pin their carriers on JDK 21 (and not on
 * JDK 24 and later); see {@link LegacyDriver}.
 */
@RestController
class LegacyController {

	static final long MAX_DELAY_MS = 5000;

	private final LegacyDriver driver = new LegacyDriver();

	@GetMapping("/api/legacy")
	LegacyView legacy(@RequestParam(defaultValue = "20") long delayMs) throws InterruptedException {
		if (delayMs < 0 || delayMs > MAX_DELAY_MS) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "delayMs must be from 0 to " + MAX_DELAY_MS);
		}
		int connection = driver.call(delayMs);
		Thread current = Thread.currentThread();
		return new LegacyView(connection, delayMs, current.isVirtual(), current.getName());
	}

}
