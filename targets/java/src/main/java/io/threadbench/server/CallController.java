package io.threadbench.server;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * CallController serves, in the servlet models, the endpoints that call the
 * downstream service: {@code /api/fanout}, one request making many calls (the
 * seed's caller), and {@code /api/downstream}, one call per request through
 * an optional bulkhead. Parameters are read first, in the order of the
 * contract's table (FanoutRequest, DownstreamRequest).
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.SERVLET)
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
        FanoutRequest fanout = FanoutRequest.parse(request.getQueryString());
        downstream.requireConfigured();
        return fanout.run(target, downstream);
    }

    /**
     * downstream makes one downstream call, holding one of {@code limit}
     * permits shared with every request of that limit when limit &gt; 0; it
     * waits for a permit however long it takes.
     */
    @GetMapping("/downstream")
    public WorkResponse downstream(HttpServletRequest request) throws InterruptedException {
        DownstreamRequest call = DownstreamRequest.parse(request.getQueryString());
        downstream.requireConfigured();
        return call.answer(target, call.callBlocking(downstream, bulkheads));
    }
}
