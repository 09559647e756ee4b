package io.threadbench.server.reactive;

import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.threadbench.server.Bulkheads;
import io.threadbench.server.Downstream;
import io.threadbench.server.DownstreamRequest;
import io.threadbench.server.FanoutRequest;
import io.threadbench.server.FanoutResponse;
import io.threadbench.server.TargetInfo;
import io.threadbench.server.WorkResponse;

/**
 * ReactiveCallController serves, in the reactive model, the endpoints that
 * call the downstream service. The fan-out and the bulkheaded call are the
 * servlet models' blocking code on boundedElastic; an unbulkheaded call is
 * non-blocking (ReactiveDownstream). Parameters are read first, in the order
 * of the contract's table (FanoutRequest, DownstreamRequest).
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class ReactiveCallController {

    private final String target;
    private final Downstream downstream;
    private final ReactiveDownstream nonBlocking;
    private final Bulkheads bulkheads = new Bulkheads();

    /**
     * ReactiveCallController answers as {@code info.target()} and calls
     * {@code downstream} blocking, or through {@code nonBlocking}.
     */
    public ReactiveCallController(TargetInfo info, Downstream downstream, ReactiveDownstream nonBlocking) {
        this.target = info.target();
        this.downstream = downstream;
        this.nonBlocking = nonBlocking;
    }

    /**
     * fanout runs the servlet models' fan-out on a boundedElastic thread,
     * which it holds until its last call is done; the response names that thread.
     */
    @GetMapping("/fanout")
    public Mono<FanoutResponse> fanout(ServerHttpRequest request) {
        FanoutRequest fanout = FanoutRequest.parse(request.getURI().getRawQuery());
        downstream.requireConfigured();
        return Blocking.call(() -> fanout.run(target, downstream));
    }

    /**
     * downstream makes one downstream call: without a bulkhead a non-blocking
     * one, answered on an event loop; with one ({@code limit} &gt; 0), the
     * blocking call holding a shared permit, on boundedElastic, as a WebFlux
     * user wraps a Semaphore.
     */
    @GetMapping("/downstream")
    public Mono<WorkResponse> downstream(ServerHttpRequest request) {
        DownstreamRequest call = DownstreamRequest.parse(request.getURI().getRawQuery());
        downstream.requireConfigured();
        Mono<Downstream.Call> outcome = call.bulkheaded()
                ? Blocking.call(() -> call.callBlocking(downstream, bulkheads))
                : nonBlocking.heavy(call.durationMs(), call.timeoutMs());
        return outcome.map(done -> call.answer(target, done));
    }
}
