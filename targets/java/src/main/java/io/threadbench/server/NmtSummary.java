package io.threadbench.server;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NmtSummary is the part of the JVM's Native Memory Tracking summary
 * ({@code jcmd <pid> VM.native_memory summary}) that threadbench records: the
 * total, and the Thread category with its stacks, where a platform thread's
 * cost shows. Sizes are in bytes.
 */
public record NmtSummary(
        long totalReserved,
        long totalCommitted,
        long threadReserved,
        long threadCommitted,
        long threadStackReserved,
        long threadStackCommitted) {

    private static final String SIZE = "(\\d+)\\s*(B|KB|MB|GB)";
    private static final Pattern TOTAL = Pattern.compile(
            "^Total: reserved=" + SIZE + ", committed=" + SIZE, Pattern.MULTILINE);
    // The Thread category header and its indented "(...)" detail lines, up to the next category.
    private static final Pattern THREAD = Pattern.compile(
            "^-\\s+Thread \\(reserved=" + SIZE + ", committed=" + SIZE + "\\)[^\\n]*\\n"
                    + "((?:[ \\t]+\\(.*\\)[^\\n]*\\n?)*)",
            Pattern.MULTILINE);
    private static final Pattern STACK = Pattern.compile("stack: reserved=" + SIZE + ", committed=" + SIZE);

    /**
     * parse reads the summary as printed by JDK 17 to 25. It is empty when
     * tracking is off ("Native memory tracking is not enabled") or the text
     * has no total. A JDK that folds stacks into another category leaves the
     * stack figures at 0.
     */
    public static Optional<NmtSummary> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher total = TOTAL.matcher(text);
        if (!total.find()) {
            return Optional.empty();
        }
        long threadReserved = 0;
        long threadCommitted = 0;
        long stackReserved = 0;
        long stackCommitted = 0;
        Matcher thread = THREAD.matcher(text);
        if (thread.find()) {
            threadReserved = bytes(thread, 1);
            threadCommitted = bytes(thread, 3);
            Matcher stack = STACK.matcher(thread.group(5));
            if (stack.find()) {
                stackReserved = bytes(stack, 1);
                stackCommitted = bytes(stack, 3);
            }
        }
        return Optional.of(new NmtSummary(bytes(total, 1), bytes(total, 3),
                threadReserved, threadCommitted, stackReserved, stackCommitted));
    }

    /** bytes converts the number in {@code group} and the unit after it. */
    private static long bytes(Matcher m, int group) {
        long value = Long.parseLong(m.group(group));
        return switch (m.group(group + 1)) {
            case "KB" -> value << 10;
            case "MB" -> value << 20;
            case "GB" -> value << 30;
            default -> value;
        };
    }
}
