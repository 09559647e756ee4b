package io.threadbench.server;

import java.util.concurrent.Semaphore;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * CallController serves the endpoints that call the downstream service:
 * {@code /api/fanout}, one request making many calls (the seed's caller), and
 * {@code /api/downstream}, one call per request through an optional bulkhead.
 * Parameters are read in the order of the contract's table, so a request with
 * two bad ones gets the same 400 as from the Go target.
 */
@RestController
@RequestMapping("/api")
public class CallController {

    private final String target;
    private final Downstream downstream;
    private final Bulkheads bulkheads = new Bulkheads();

    /** CallController answers as {@code info.target()} and calls through {@code downstream}. */
    public CallController(TargetInfo info, Downstream downstream) {
        this.target = info.target();
        this.downstream = downstream;
    }

    /** fanout makes {@code calls} downstream calls spread as {@code mode} says and reports what became of them. */
    @GetMapping("/fanout")
    public FanoutResponse fanout(HttpServletRequest request) {
        String query = request.getQueryString();
        int calls = IntParam.CALLS.parse(query);
        FanoutMode mode = FanoutMode.of(FanoutMode.PARAM.parse(query));
        int limit = IntParam.FANOUT_LIMIT.parse(query);
        int timeoutMs = IntParam.TIMEOUT.parse(query);
        int durationMs = IntParam.FANOUT_DURATION.parse(query);
        requireDownstream();
        return FanoutResponse.run(target, downstream, mode, calls, limit, durationMs, timeoutMs);
    }

    /**
     * downstream makes one downstream call, holding one of {@code limit}
     * permits shared with every request of that limit when limit &gt; 0; it
     * waits for a permit however long it takes.
     */
    @GetMapping("/downstream")
    public WorkResponse downstream(HttpServletRequest request) throws InterruptedException {
        String query = request.getQueryString();
        int durationMs = IntParam.DURATION.parse(query);
        int limit = IntParam.BULKHEAD_LIMIT.parse(query);
        int timeoutMs = IntParam.TIMEOUT.parse(query);
        requireDownstream();
        Downstream.Call call = limit > 0 ? callHolding(bulkheads.of(limit), durationMs, timeoutMs)
                : downstream.heavy(durationMs, timeoutMs);
        if (call.outcome() != CallOutcome.OK) {
            throw DownstreamException.failed(call, timeoutMs);
        }
        return WorkResponse.of(target, "downstream", durationMs);
    }

    private Downstream.Call callHolding(Semaphore permits, int durationMs, int timeoutMs) throws InterruptedException {
        permits.acquire();
        try {
            return downstream.heavy(durationMs, timeoutMs);
        } finally {
            permits.release();
        }
    }

    private void requireDownstream() {
        if (!downstream.isConfigured()) {
            throw DownstreamException.notConfigured();
        }
    }
}
