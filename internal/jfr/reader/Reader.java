import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reader writes the events of some types in a flight recording in the compact
 * text format that internal/jfr's DecodeCompact reads: `java Reader FILE TYPE...`.
 *
 * <p>Each distinct thread, frame and stack is written once, on a line of its
 * own, before the first event that uses it; an event's line names them by
 * number. Stacks are written whole, as deep as the recorder kept them. Values
 * are separated by tabs; a tab, a newline, a carriage return or a backslash
 * in a value is escaped with a backslash, and a null value is written \N.
 *
 * <pre>
 * threadbench-jfr 1
 * T id javaThreadId virtual(0|1) javaName
 * F id class method line kind
 * S id truncated(0|1) frameId,frameId,...   (innermost frame first)
 * E type startNanos durationNanos threadId stackId key=value...
 * end eventCount
 * </pre>
 *
 * A thread or stack id of - means none. Classes are written as the recording
 * holds them (java/lang/Object), durations in nanoseconds, instants as
 * nanoseconds since the epoch. The last line says the events were all
 * written: output without it was cut short.
 *
 * <p>It uses only jdk.jfr.consumer, present since JDK 11, so that any JDK the
 * host has can read what any JVM recorded. It exits with 1, and says why on
 * its standard error, when the recording cannot be read.
 */
public final class Reader {
    /** The first line of the output: the format's name and version. */
    static final String HEADER = "threadbench-jfr 1";

    /** The string fields written as they are, when an event has them. */
    static final List<String> TEXT_FIELDS = Arrays.asList(
            "name", "cause", "state", "pinnedReason", "blockingOperation", "exceptionMessage");

    /** The class fields, written as the class's name. */
    static final List<String> CLASS_FIELDS = Arrays.asList("monitorClass", "parkedClass");

    /** The thread fields, written as the thread's Java name. */
    static final List<String> THREAD_FIELDS = Arrays.asList("previousOwner", "carrierThread");

    /** The duration fields, written in nanoseconds. */
    static final List<String> DURATION_FIELDS = Arrays.asList("sumOfPauses");

    private final Writer out;
    private final Map<String, Integer> threads = new HashMap<>();
    private final Map<String, Integer> frames = new HashMap<>();
    private final Map<String, Integer> stacks = new HashMap<>();
    // The parser resolves a stack once per chunk and hands the same object
    // to every event that has it, so most look-ups end here, before the
    // stack's frames are read. Each chunk brings objects of its own, and
    // each holds its frames: the map is emptied when it holds MAX_OBJECTS.
    private final Map<RecordedStackTrace, Integer> stackObjects = new IdentityHashMap<>();
    private static final int MAX_OBJECTS = 8192;
    private long events;

    private Reader(Writer out) {
        this.out = out;
    }

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: java Reader RECORDING [EVENT-TYPE...]");
            System.exit(2);
        }
        Set<String> types = new HashSet<>(Arrays.asList(args).subList(1, args.length));
        Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
        try (RecordingFile recording = new RecordingFile(Paths.get(args[0]))) {
            Reader reader = new Reader(out);
            out.write(HEADER);
            out.write('\n');
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                if (types.isEmpty() || types.contains(event.getEventType().getName())) {
                    reader.write(event);
                }
            }
            out.write("end\t" + reader.events + "\n");
            out.flush();
        } catch (IOException | RuntimeException e) {
            System.err.println("cannot read " + args[0] + ": " + e);
            System.exit(1);
        }
    }

    /** Writes one event, and the thread and stack it names if they are new. */
    private void write(RecordedEvent event) throws IOException {
        String thread = threadId(eventThread(event));
        String stack = stackId(event.getStackTrace());
        StringBuilder line = new StringBuilder(128).append("E\t").append(event.getEventType().getName());
        line.append('\t').append(nanos(event.getStartTime()));
        // The duration field as recorded, not the end less the start, which
        // rounds twice: `jfr print` writes the field.
        line.append('\t').append(event.hasField("duration") ? event.getDuration("duration").toNanos() : 0);
        line.append('\t').append(thread).append('\t').append(stack);
        for (String key : TEXT_FIELDS) {
            if (event.hasField(key)) {
                field(line, key, stringOf(event.getValue(key)));
            }
        }
        for (String key : CLASS_FIELDS) {
            if (event.hasField(key)) {
                RecordedClass c = event.getValue(key);
                field(line, key, c == null ? null : className(c));
            }
        }
        for (String key : THREAD_FIELDS) {
            if (event.hasField(key)) {
                RecordedThread t = event.getValue(key);
                field(line, key, t == null ? null : t.getJavaName());
            }
        }
        for (String key : DURATION_FIELDS) {
            if (event.hasField(key)) {
                field(line, key, Long.toString(event.getDuration(key).toNanos()));
            }
        }
        out.append(line).append('\n');
        events++;
    }

    /** The thread an event happened on: the sampled one of an execution sample. */
    private static RecordedThread eventThread(RecordedEvent event) {
        RecordedThread t = event.hasField("eventThread") ? event.getValue("eventThread") : null;
        if (t == null && event.hasField("sampledThread")) {
            t = event.getValue("sampledThread");
        }
        return t;
    }

    /** Appends key=value, or nothing for a null value. */
    private static void field(StringBuilder line, String key, String value) {
        if (value != null) {
            line.append('\t').append(key).append('=');
            escape(line, value);
        }
    }

    /** A field's value as text: a constant such as a thread state is its name. */
    private static String stringOf(Object value) {
        return value == null ? null : value.toString();
    }

    /** The class's name as the recording holds it, slashes and all. */
    private static String className(RecordedClass c) {
        return c.getString("name");
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** Returns the thread's number, writing its line the first time. */
    private String threadId(RecordedThread t) throws IOException {
        if (t == null) {
            return "-";
        }
        boolean virtual = t.hasField("virtual") && t.getBoolean("virtual");
        String name = t.getJavaName();
        // The field as recorded: getJavaThreadId() says -1 for a thread of
        // the JVM's own, which `jfr print` writes as 0.
        long javaThreadId = t.hasField("javaThreadId") ? t.getLong("javaThreadId") : 0;
        String key = javaThreadId + "\t" + (virtual ? 1 : 0) + "\t" + (name == null ? "\\N" : escape(new StringBuilder(), name));
        Integer id = threads.get(key);
        if (id == null) {
            id = threads.size();
            threads.put(key, id);
            out.append("T\t").append(Integer.toString(id)).append('\t').append(key).append('\n');
        }
        return id.toString();
    }

    /** Returns the stack's number, writing it and its new frames the first time. */
    private String stackId(RecordedStackTrace st) throws IOException {
        if (st == null) {
            return "-";
        }
        Integer id = stackObjects.get(st);
        if (id != null) {
            return id.toString();
        }
        StringBuilder key = new StringBuilder().append(st.isTruncated() ? '1' : '0').append('\t');
        List<RecordedFrame> fs = st.getFrames();
        for (int i = 0; i < fs.size(); i++) {
            if (i > 0) {
                key.append(',');
            }
            key.append(frameId(fs.get(i)));
        }
        String k = key.toString();
        id = stacks.get(k);
        if (id == null) {
            id = stacks.size();
            stacks.put(k, id);
            out.append("S\t").append(Integer.toString(id)).append('\t').append(k).append('\n');
        }
        if (stackObjects.size() >= MAX_OBJECTS) {
            stackObjects.clear();
        }
        stackObjects.put(st, id);
        return id.toString();
    }

    /** Returns the frame's number, writing its line the first time. */
    private int frameId(RecordedFrame f) throws IOException {
        RecordedMethod m = f.getMethod();
        StringBuilder key = new StringBuilder(96);
        escape(key, m == null || m.getType() == null ? "" : className(m.getType())).append('\t');
        escape(key, m == null ? "" : m.getName()).append('\t');
        key.append(f.getLineNumber()).append('\t');
        escape(key, f.getType() == null ? "" : f.getType());
        String k = key.toString();
        Integer id = frames.get(k);
        if (id == null) {
            id = frames.size();
            frames.put(k, id);
            out.append("F\t").append(Integer.toString(id)).append('\t').append(k).append('\n');
        }
        return id;
    }

    /** Appends s to b with tabs, newlines, returns and backslashes escaped. */
    private static StringBuilder escape(StringBuilder b, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\': b.append("\\\\"); break;
                case '\t': b.append("\\t"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                default: b.append(c);
            }
        }
        return b;
    }
}
