package io.threadbench.server;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * WorkResponse is the body of every /api endpoint, fields in the order of the
 * contract (the Go target writes the same, without {@code virtual}).
 * {@code work} and {@code result} are set by cpu only, {@code row} by db only.
 */
@JsonPropertyOrder({"target", "endpoint", "durationMs", "thread", "virtual", "work", "result", "row"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkResponse(
        String target,
        String endpoint,
        long durationMs,
        String thread,
        boolean virtual,
        Integer work,
        String result,
        Database.Row row) {

    /** of describes work done on the calling thread, which is the handler's. */
    public static WorkResponse of(String target, String endpoint, long durationMs) {
        Thread current = Thread.currentThread();
        return new WorkResponse(target, endpoint, durationMs, current.toString(), current.isVirtual(), null, null, null);
    }

    /** withWork adds cpu's rounds and checksum. */
    public WorkResponse withWork(int rounds, String checksum) {
        return new WorkResponse(target, endpoint, durationMs, thread, virtual, rounds, checksum, row);
    }

    /** withRow adds the row db read. */
    public WorkResponse withRow(Database.Row read) {
        return new WorkResponse(target, endpoint, durationMs, thread, virtual, work, result, read);
    }
}
