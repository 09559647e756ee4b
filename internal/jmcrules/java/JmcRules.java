import java.io.BufferedWriter;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.rules.IResult;
import org.openjdk.jmc.flightrecorder.rules.IRule;
import org.openjdk.jmc.flightrecorder.rules.ResultToolkit;
import org.openjdk.jmc.flightrecorder.rules.RuleRegistry;
import org.openjdk.jmc.flightrecorder.rules.TypedResult;
import org.openjdk.jmc.flightrecorder.rules.util.RulesToolkit;

/**
 * JmcRules runs JDK Mission Control's automated analysis on a flight
 * recording and writes every rule's result as one JSON document that
 * internal/jmcrules decodes: `java JmcRules FILE TIMEOUT_MILLIS`.
 *
 * <pre>
 * {"loadSeconds":1.2,"rulesSeconds":3.4,"rules":[
 *   {"id":"...","name":"...","topic":"...","severity":"WARNING","score":80.5,
 *    "summary":"...","explanation":"...","solution":"...","error":"..."}, ...]}
 * </pre>
 *
 * Rules come sorted by id. A field the rule left empty is left out; score is
 * left out when the rule gave none (a not-applicable result, say). A rule
 * that failed, or was not done within TIMEOUT_MILLIS of the recording being
 * loaded, has an error and no severity. Texts are JMC's, filled in with the
 * rule's values, without HTML.
 *
 * <p>It exits with 3, and says why on the last line of its standard error,
 * when the recording cannot be loaded. The document is written only once every rule is done,
 * so output without its closing brace was cut short.
 */
public final class JmcRules {
    /** The exit status when the recording cannot be loaded: the caller's input is wrong. */
    static final int EXIT_UNREADABLE = 3;

    private JmcRules() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java JmcRules FILE TIMEOUT_MILLIS");
            System.exit(2);
        }
        long start = System.nanoTime();
        IItemCollection items = load(new File(args[0]));
        long loaded = System.nanoTime();
        StringBuilder rules = evaluate(items, loaded + Long.parseLong(args[1]) * 1_000_000L);
        long done = System.nanoTime();
        Writer out = new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));
        out.write("{\"loadSeconds\":" + seconds(loaded - start) + ",\"rulesSeconds\":" + seconds(done - loaded)
                + ",\"rules\":[" + rules + "]}\n");
        out.flush();
        // A rule still running past the deadline must not keep the JVM up.
        System.exit(0);
    }

    /** load reads the whole recording, or exits saying why it cannot. */
    static IItemCollection load(File file) {
        try {
            return JfrLoaderToolkit.loadEvents(file);
        } catch (IOException | CouldNotLoadRecordingException | RuntimeException e) {
            System.err.println("JMC cannot load " + file + " as a flight recording: " + e);
            System.exit(EXIT_UNREADABLE);
            return null;
        }
    }

    /**
     * evaluate runs every registered rule, in as many threads as there are
     * processors, and writes their results, waiting for them until deadline
     * (System.nanoTime).
     */
    static StringBuilder evaluate(IItemCollection items, long deadline) {
        Map<IRule, Future<IResult>> futures = RulesToolkit.evaluateParallel(RuleRegistry.getRules(), items, null, 0);
        List<IRule> rules = new ArrayList<>(futures.keySet());
        rules.sort(Comparator.comparing(IRule::getId));
        StringBuilder json = new StringBuilder();
        for (IRule rule : rules) {
            if (json.length() > 0) {
                json.append(',');
            }
            json.append(result(rule, futures.get(rule), deadline));
        }
        return json;
    }

    /** result waits for one rule's result until deadline and writes it. */
    static String result(IRule rule, Future<IResult> future, long deadline) {
        JsonObject json = new JsonObject();
        json.put("id", rule.getId()).put("name", rule.getName()).put("topic", rule.getTopic());
        try {
            IResult result = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            describe(json, result);
        } catch (TimeoutException e) {
            future.cancel(true);
            json.put("error", "not done within the time the rules were given");
        } catch (ExecutionException e) {
            json.put("error", String.valueOf(e.getCause()));
        } catch (InterruptedException | RuntimeException e) {
            json.put("error", String.valueOf(e));
        }
        return json.close();
    }

    /** describe adds what a result says: severity, score and texts. */
    static void describe(JsonObject json, IResult result) {
        json.put("severity", result.getSeverity().name());
        IQuantity score = result.getResult(TypedResult.SCORE);
        if (score != null) {
            json.putNumber("score", score.doubleValue());
        }
        json.put("summary", text(result, result.getSummary()));
        json.put("explanation", text(result, result.getExplanation()));
        json.put("solution", text(result, result.getSolution()));
    }

    /**
     * text fills a result's message in with the rule's values, as plain text.
     * The values are written without HTML, but the templates hold a few
     * paragraph tags and links, and quote with the doubled apostrophes of
     * MessageFormat, which nothing undoubles since the templates are not
     * formatted by it. Other angle brackets are text ("stackdepth=<value>").
     */
    static String text(IResult result, String message) {
        String filled = ResultToolkit.populateMessage(result, message, false);
        if (filled == null) {
            return null;
        }
        return filled.replaceAll("(?i)<br\\s*/?>|</?p>", "\n")
                .replaceAll("(?i)<a\\s[^>]*>|</a>", "")
                .replace("''", "'")
                .replaceAll("\n{3,}", "\n\n")
                .trim();
    }

    /** seconds writes a span of System.nanoTime as seconds. */
    static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** JsonObject writes one JSON object, leaving out null values. */
    static final class JsonObject {
        private final StringBuilder out = new StringBuilder("{");

        JsonObject put(String name, String value) {
            if (value != null && !value.isEmpty()) {
                key(name);
                quote(value);
            }
            return this;
        }

        JsonObject putNumber(String name, double value) {
            // JSON has no NaN or infinity: such a score is no score.
            if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                key(name);
                out.append(value);
            }
            return this;
        }

        String close() {
            return out.append('}').toString();
        }

        private void key(String name) {
            if (out.length() > 1) {
                out.append(',');
            }
            quote(name);
            out.append(':');
        }

        private void quote(String s) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
            out.append('"');
        }
    }
}
