package io.threadbench.server;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Deflater;
import org.HdrHistogram.Histogram;

/**
 * CallTimes keeps each call of a fan-out: its own time and its time from the
 * fan-out's start, a slot per call so that the calls' threads never wait for
 * each other to note theirs. Both are written as HDR histograms in the
 * orchestrator's geometry (microseconds, 1 µs to 10 minutes, 3 significant
 * digits), V2 compressed, base64, as the Go target writes them.
 */
final class CallTimes {

    static final long LOWEST = 1;
    static final long HIGHEST = 600_000_000L;
    static final int DIGITS = 3;

    private final AtomicInteger next = new AtomicInteger();
    private final long[] callNanos;
    private final long[] doneNanos;

    CallTimes(int calls) {
        callNanos = new long[calls];
        doneNanos = new long[calls];
    }

    /** add notes a call sent at {@code sent} and back at {@code back}, of a fan-out started at {@code start} (nanoTime). */
    void add(long start, long sent, long back) {
        int i = next.getAndIncrement();
        callNanos[i] = back - sent;
        doneNanos[i] = back - start;
    }

    /** calls is the histogram of the calls' own times. */
    String calls() {
        return encode(callNanos, next.get());
    }

    /** done is the histogram of the calls' times from the fan-out's start. */
    String done() {
        return encode(doneNanos, next.get());
    }

    private static String encode(long[] nanos, int n) {
        Histogram h = new Histogram(LOWEST, HIGHEST, DIGITS);
        for (int i = 0; i < n; i++) {
            h.recordValue(Math.min(Math.max(nanos[i] / 1_000, LOWEST), HIGHEST));
        }
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buf, Deflater.DEFAULT_COMPRESSION);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), length));
    }
}
