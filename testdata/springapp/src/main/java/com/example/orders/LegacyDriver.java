package com.example.orders;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for a client library written before virtual threads: a driver
 * that guards each of its few connections with {@code synchronized} and
 * blocks inside the monitor for the round trip, as JDBC drivers, connection
 * pools and loggers did (HikariCP#2293, c3p0#174). Calls take the
 * connections in turn, so several run at once, one per connection.
 * <p>
 * On JDK 21 to 23 a virtual thread that blocks while holding a monitor pins
 * its carrier: the carrier cannot run any other virtual thread until the
 * call returns, so at most as many calls run at once as there are carriers
 * (the CPUs), however many connections there are, and every other request
 * of the service waits for a carrier meanwhile. JDK 24 (JEP 491) unmounts
 * the virtual thread instead. On platform threads each call holds its own
 * thread either way.
 */
final class LegacyDriver {

	/** The connections, each its own monitor. */
	static final int CONNECTIONS = 8;

	private final Connection[] connections = new Connection[CONNECTIONS];

	private final AtomicLong next = new AtomicLong();

	LegacyDriver() {
		for (int i = 0; i < CONNECTIONS; i++) {
			connections[i] = new Connection(i);
		}
	}

	/** Makes one call of {@code delayMs} on the next connection in turn; returns that connection's number. */
	int call(long delayMs) throws InterruptedException {
		return nextConnection().roundTrip(delayMs);
	}

	private Connection nextConnection() {
		return connections[(int) (next.getAndIncrement() % CONNECTIONS)];
	}

	/** One connection: a call holds its monitor for the whole round trip. */
	static final class Connection {

		private final int number;

		Connection(int number) {
			this.number = number;
		}

		/** Blocks for {@code delayMs} (the wait for the server's answer) inside this connection's monitor. */
		synchronized int roundTrip(long delayMs) throws InterruptedException {
			Thread.sleep(delayMs);
			return number;
		}

	}

}
