import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * Churn keeps a JVM compiling and collecting, for the perfdata tests: three
 * daemon threads fill and join hash maps of strings (hot methods for the
 * JIT, garbage for the collector) while the main thread sleeps for the
 * number of seconds given (30 by default), then the JVM exits.
 */
public class Churn {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 30;
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(Churn::spin, "churn-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(seconds * 1000);
    }

    static void spin() {
        Random random = new Random();
        while (true) {
            Map<Integer, String> map = new HashMap<>();
            for (int i = 0; i < 10_000; i++) {
                map.put(random.nextInt(), Integer.toHexString(i));
            }
            sink += String.join(",", map.values()).length();
        }
    }
}
