import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sampler is threadbench's thread sampler, a Java agent the environment
 * adds (-javaagent, through JAVA_TOOL_OPTIONS). Every period it takes a
 * thread dump of its JVM with HotSpotDiagnosticMXBean.dumpThreads (JDK 21
 * and later: it lists virtual threads too, parked or not, which JFR does
 * not see waiting) or, before 21, ThreadMXBean.dumpAllThreads (platform
 * threads), and appends what it saw to a file, threads grouped by stack:
 *
 *   P <period ms> <java version> <budget>   once
 *   K <id> <frame> <frame> ...              a stack, innermost frame first, once
 *   S <epoch ms> <cost us> <threads> <cpu us> <next ms>   a sample: its wall
 *                                           time, the sampler's CPU time, the wait to the next
 *   T <stack id> <v|p> <state> <count> <blocker> <name>   threads of the sample
 *
 * fields separated by tabs. It keeps within a budget of one CPU's time
 * (2 % by default): after a dump whose thread used c of CPU, the next
 * waits at least c / budget. Its CPU, not its wall time: on a busy CPU a
 * dump waits for the CPU far longer than it uses it. A frame is class.method, with :line where
 * known. It never stops its JVM: any failure ends the sampling, said in
 * one line "E <text>".
 */
public final class Sampler implements Runnable {
    private final Path out;
    private final long periodMillis;
    private final double budget;
    private final Path dump;
    private final Map<String, Integer> stacks = new HashMap<>();
    private BufferedWriter w;

    private Sampler(Path out, long periodMillis, double budget) {
        this.out = out;
        this.periodMillis = periodMillis;
        this.budget = budget;
        this.dump = Path.of(out + ".dump");
    }

    public static void premain(String args) {
        Map<String, String> opts = new HashMap<>();
        for (String kv : (args == null ? "" : args).split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) opts.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        Sampler s = new Sampler(Path.of(opts.getOrDefault("file", "/tmp/threadbench-threads.txt")),
                Long.parseLong(opts.getOrDefault("period", "1000")), Double.parseDouble(opts.getOrDefault("budget", "0.02")));
        Thread t = new Thread(s, "threadbench-sampler");
        t.setDaemon(true);
        t.start();
    }

    public static void agentmain(String args) {
        premain(args);
    }

    @Override
    public void run() {
        try {
            w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(out, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), StandardCharsets.UTF_8), 1 << 16);
            w.write("P\t" + periodMillis + "\t" + Runtime.version() + "\t" + budget + "\n");
            w.flush();
            Method dumpThreads = dumpThreadsMethod();
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            boolean cpuTimed = mx.isCurrentThreadCpuTimeSupported();
            long delay = periodMillis;
            while (true) {
                Thread.sleep(delay);
                long at = System.currentTimeMillis();
                long begin = System.nanoTime();
                long cpuBegin = cpuTimed ? mx.getCurrentThreadCpuTime() : 0;
                List<Seen> seen = dumpThreads != null ? dumped(dumpThreads) : managed();
                long cost = (System.nanoTime() - begin) / 1000;
                long cpu = cpuTimed ? (mx.getCurrentThreadCpuTime() - cpuBegin) / 1000 : cost;
                // Within budget: a dump that used c of CPU waits c / budget
                // before the next (200 platform threads on a busy CPU: 436 ms
                // a dump, 20 % of the throughput at one a second).
                delay = Math.max(periodMillis, (long) (cpu / 1000.0 / budget));
                write(at, cost, seen, cpu, delay);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            try {
                if (w != null) {
                    w.write("E\t" + String.valueOf(e).replace('\n', ' ').replace('\t', ' ') + "\n");
                    w.flush();
                }
            } catch (IOException ignored) {
                // nothing left to say it with
            }
        }
    }

    /** A thread as a dump showed it. */
    private static final class Seen {
        final List<String> frames = new ArrayList<>();
        String name = "";
        boolean virtual;
        String state = "";
        String blocker = "";
    }

    /** dumpThreadsMethod returns HotSpotDiagnosticMXBean.dumpThreads where the JDK has it (21+). */
    private static Method dumpThreadsMethod() {
        try {
            Class<?> bean = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
            Class<?> format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
            return bean.getMethod("dumpThreads", String.class, format);
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private List<Seen> dumped(Method dumpThreads) throws Exception {
        Files.deleteIfExists(dump); // dumpThreads refuses a file that exists
        Class bean = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
        Class format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
        Object mx = ManagementFactory.getPlatformMXBean(bean);
        dumpThreads.invoke(mx, dump.toString(), Enum.valueOf(format, "TEXT_PLAIN"));
        List<Seen> seen = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(dump, StandardCharsets.UTF_8)) {
            Seen cur = null;
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("#")) {
                    cur = header(line);
                    seen.add(cur);
                } else if (cur != null && !line.isBlank()) {
                    body(cur, line.trim());
                }
            }
        } finally {
            Files.deleteIfExists(dump);
        }
        return seen;
    }

    /** header reads a thread's line: #12 "name" [virtual] [STATE [time]]. */
    private static Seen header(String line) {
        Seen s = new Seen();
        int open = line.indexOf('"'), close = line.lastIndexOf('"');
        if (open >= 0 && close > open) {
            s.name = line.substring(open + 1, close);
        }
        for (String word : line.substring(Math.max(close + 1, 0)).trim().split(" ")) {
            if (word.equals("virtual")) {
                s.virtual = true;
            } else if (!word.isEmpty() && Character.isUpperCase(word.charAt(0)) && word.chars().allMatch(c -> c == '_' || Character.isUpperCase(c))) {
                s.state = word;
            }
        }
        return s;
    }

    /** body reads a line under a thread's header: a frame, or what it waits for. */
    private static void body(Seen s, String line) {
        if (line.startsWith("- ")) {
            int lt = line.indexOf('<'), at = line.indexOf('@', lt + 1);
            if (s.blocker.isEmpty() && lt >= 0 && at > lt && (line.contains("parking to wait for") || line.contains("waiting to lock") || line.contains("waiting on"))) {
                s.blocker = line.substring(lt + 1, at);
            }
            return;
        }
        if (line.startsWith("at ")) {
            line = line.substring(3);
        }
        s.frames.add(frame(line));
    }

    /** frame turns java.base/a.B.m(B.java:12) into a.B.m:12. */
    static String frame(String text) {
        int slash = text.indexOf('/'), paren = text.indexOf('(');
        if (slash >= 0 && (paren < 0 || slash < paren)) {
            text = text.substring(slash + 1);
            paren = text.indexOf('(');
        }
        String method = paren >= 0 ? text.substring(0, paren) : text;
        if (paren >= 0) {
            int colon = text.lastIndexOf(':'), end = text.lastIndexOf(')');
            if (colon > paren && end > colon) {
                String line = text.substring(colon + 1, end);
                if (!line.isEmpty() && line.chars().allMatch(Character::isDigit)) {
                    return method + ":" + line;
                }
            }
        }
        return method;
    }

    /** managed reads the platform threads, for a JDK without dumpThreads. */
    private static List<Seen> managed() {
        List<Seen> seen = new ArrayList<>();
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            if (ti == null) continue;
            Seen s = new Seen();
            s.name = ti.getThreadName();
            s.state = ti.getThreadState().name();
            if (ti.getLockInfo() != null) s.blocker = ti.getLockInfo().getClassName();
            for (StackTraceElement e : ti.getStackTrace()) {
                s.frames.add(e.getClassName() + "." + e.getMethodName() + (e.getLineNumber() > 0 ? ":" + e.getLineNumber() : ""));
            }
            seen.add(s);
        }
        return seen;
    }

    /** write appends a sample: new stacks first, then the threads grouped. */
    private void write(long at, long cost, List<Seen> seen, long cpu, long next) throws IOException {
        Map<String, Integer> groups = new LinkedHashMap<>();
        for (Seen s : seen) {
            if (s.name.equals("threadbench-sampler")) continue;
            String stack = String.join("\t", s.frames);
            Integer id = stacks.get(stack);
            if (id == null) {
                id = stacks.size();
                stacks.put(stack, id);
                w.write("K\t" + id + (stack.isEmpty() ? "" : "\t" + stack) + "\n");
            }
            String key = id + "\t" + (s.virtual ? "v" : "p") + "\t" + (s.state.isEmpty() ? "-" : s.state) + "\t";
            String tail = (s.blocker.isEmpty() ? "-" : s.blocker) + "\t" + nameClass(s.name);
            groups.merge(key + "\u0000" + tail, 1, Integer::sum);
        }
        w.write("S\t" + at + "\t" + cost + "\t" + seen.size() + "\t" + cpu + "\t" + next + "\n");
        for (Map.Entry<String, Integer> g : groups.entrySet()) {
            String[] parts = g.getKey().split("\u0000", 2);
            w.write("T\t" + parts[0] + g.getValue() + "\t" + parts[1] + "\n");
        }
        w.flush();
    }

    /** nameClass groups a pool's threads: http-nio-8080-exec-12 becomes http-nio-#-exec-#. */
    static String nameClass(String name) {
        return name.replaceAll("[0-9]+", "#").replace('\t', ' ');
    }
}
