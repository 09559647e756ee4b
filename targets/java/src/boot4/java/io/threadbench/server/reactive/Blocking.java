package io.threadbench.server.reactive;

import java.util.concurrent.Callable;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Blocking runs blocking work off the event loops, on Reactor's
 * boundedElastic scheduler, as Reactor's documentation tells a WebFlux user
 * to wrap a blocking library: the event loop that took the request is free
 * again at once, and the work holds one of boundedElastic's threads (10 per
 * processor, the rest queue) for as long as it blocks.
 */
final class Blocking {

    private Blocking() {
    }

    /** call runs {@code work} on a boundedElastic thread when the Mono is subscribed to. */
    static <T> Mono<T> call(Callable<T> work) {
        return Mono.fromCallable(work).subscribeOn(Schedulers.boundedElastic());
    }
}
