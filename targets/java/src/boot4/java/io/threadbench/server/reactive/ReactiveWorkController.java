package io.threadbench.server.reactive;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.threadbench.server.CpuWork;
import io.threadbench.server.HeavyRequest;
import io.threadbench.server.IntParam;
import io.threadbench.server.NativeSleep;
import io.threadbench.server.SleepWork;
import io.threadbench.server.TargetInfo;
import io.threadbench.server.WorkResponse;

/**
 * ReactiveWorkController serves the contract's workload endpoints in the
 * reactive model. Parameters are read on the event loop before anything else
 * can fail; each response names the thread that finished the work.
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class ReactiveWorkController {

    private static final Logger LOG = LoggerFactory.getLogger(ReactiveWorkController.class);

    private final String target;
    private final NativeSleep nativeSleep;

    /** ReactiveWorkController answers as {@code info.target()} and sleeps natively through {@code nativeSleep}. */
    public ReactiveWorkController(TargetInfo info, NativeSleep nativeSleep) {
        this.target = info.target();
        this.nativeSleep = nativeSleep;
    }

    /** light answers at once, on the event loop. */
    @GetMapping("/light")
    public Mono<WorkResponse> light() {
        return Mono.fromSupplier(() -> WorkResponse.of(target, "light", 0));
    }

    /**
     * heavy waits {@code times} times for {@code duration} in a row with
     * Mono.delay: a timer of Reactor's parallel scheduler, no thread held
     * while it runs, so the response comes from a parallel-N thread. With
     * {@code log=1} it then logs the servlet handler's line.
     */
    @GetMapping("/heavy")
    public Mono<WorkResponse> heavy(ServerHttpRequest request) {
        HeavyRequest heavy = HeavyRequest.parse(request.getURI().getRawQuery());
        return Mono.delay(Duration.ofMillis(heavy.millis()))
                .repeat(heavy.times() - 1) // times delays in all, each after the one before
                .then(Mono.fromSupplier(() -> {
                    heavy.logDone(LOG);
                    return WorkResponse.of(target, "heavy", heavy.durationMs());
                }));
    }

    /**
     * cpu does the contract's SHA-256 rounds on the event loop that took the
     * request, as a reactive service does with CPU work: the loop serves no
     * other connection meanwhile.
     */
    @GetMapping("/cpu")
    public Mono<WorkResponse> cpu(ServerHttpRequest request) {
        int rounds = IntParam.WORK.parse(request.getURI().getRawQuery());
        return Mono.fromSupplier(() -> WorkResponse.of(target, "cpu", 0).withWork(rounds, CpuWork.run(rounds)));
    }

    /** nativeSleep blocks a boundedElastic thread in a nanosleep downcall. */
    @GetMapping("/native")
    public Mono<WorkResponse> nativeSleep(ServerHttpRequest request) {
        int millis = IntParam.DURATION.parse(request.getURI().getRawQuery());
        return Blocking.call(() -> {
            nativeSleep.sleep(millis);
            return WorkResponse.of(target, "native", millis);
        });
    }

    /** synchronizedSleep sleeps inside synchronized on a boundedElastic thread (SleepWork.inSynchronized). */
    @GetMapping("/synchronized")
    public Mono<WorkResponse> synchronizedSleep(ServerHttpRequest request) {
        int millis = IntParam.DURATION.parse(request.getURI().getRawQuery());
        return Blocking.call(() -> {
            SleepWork.inSynchronized(millis);
            return WorkResponse.of(target, "synchronized", millis);
        });
    }

    /** lockSleep sleeps holding a ReentrantLock on a boundedElastic thread (SleepWork.holdingLock). */
    @GetMapping("/lock")
    public Mono<WorkResponse> lockSleep(ServerHttpRequest request) {
        int millis = IntParam.DURATION.parse(request.getURI().getRawQuery());
        return Blocking.call(() -> {
            SleepWork.holdingLock(millis);
            return WorkResponse.of(target, "lock", millis);
        });
    }
}
