package io.threadbench.server;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import org.apache.catalina.util.ServerInfo;
import org.springframework.boot.WebApplicationType;
import org.springframework.core.env.PropertyResolver;

import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;

/**
 * ServerThreads is the server that serves a thread model's endpoints and the
 * thread pools it runs them on, by the names /info's knobs give them:
 * Tomcat's pool (and the virtual threads' scheduler) in the servlet models,
 * Reactor Netty's event loops and Reactor's boundedElastic scheduler in the
 * reactive one. {@code tomcatMaxThreads} is /info's legacy field: 0 where
 * there is no Tomcat pool.
 */
record ServerThreads(String server, Map<String, String> knobs, int tomcatMaxThreads) {

    /** TOMCAT_MAX_THREADS is the knob of Tomcat's pool size (server.tomcat.threads.max). */
    static final String TOMCAT_MAX_THREADS = "tomcatMaxThreads";

    /** VIRTUAL_PARALLELISM is the knob of the virtual threads' carriers. */
    static final String VIRTUAL_PARALLELISM = "virtualParallelism";

    /** EVENT_LOOP_THREADS is the knob of Reactor Netty's event loops, which serve every reactive request. */
    static final String EVENT_LOOP_THREADS = "eventLoopThreads";

    /** BOUNDED_ELASTIC_THREADS is the knob of Reactor's boundedElastic scheduler, where blocking work runs. */
    static final String BOUNDED_ELASTIC_THREADS = "boundedElasticThreads";

    /** LOGGED is the order the startup line writes the knobs in, those a model has. */
    private static final List<String> LOGGED = List.of(TOMCAT_MAX_THREADS, VIRTUAL_PARALLELISM, EVENT_LOOP_THREADS,
            BOUNDED_ELASTIC_THREADS);

    /** DEFAULT_TOMCAT_MAX_THREADS is Tomcat's pool size when TOMCAT_MAX_THREADS is unset. */
    static final int DEFAULT_TOMCAT_MAX_THREADS = 200;

    /** ServerThreads copies knobs, so the record stays immutable. */
    ServerThreads {
        knobs = Map.copyOf(knobs);
    }

    /** of is {@code model}'s server, sized by {@code env}; virtual threads run on {@code virtualParallelism} carriers. */
    static ServerThreads of(ThreadModel model, PropertyResolver env, int virtualParallelism) {
        if (model.webApplicationType() == WebApplicationType.REACTIVE) {
            return reactorNetty();
        }
        return tomcat(env.getProperty("server.tomcat.threads.max", Integer.class, DEFAULT_TOMCAT_MAX_THREADS),
                virtualParallelism);
    }

    /** tomcat is the servlet models' server: Tomcat's pool of {@code maxThreads}, virtual threads on {@code virtualParallelism} carriers. */
    static ServerThreads tomcat(int maxThreads, int virtualParallelism) {
        return new ServerThreads(ServerInfo.getServerInfo(), Map.of(
                TOMCAT_MAX_THREADS, String.valueOf(maxThreads),
                VIRTUAL_PARALLELISM, String.valueOf(virtualParallelism)), maxThreads);
    }

    /**
     * reactorNetty is the reactive model's server. Its event loops are
     * LoopResources' default count (reactor.netty.ioWorkerCount, else the
     * processors but at least 4), which the server's global HttpResources
     * use; boundedElastic's cap is 10 threads per processor unless
     * reactor.schedulers.defaultBoundedElasticSize says otherwise.
     */
    static ServerThreads reactorNetty() {
        String version = Objects.requireNonNullElse(LoopResources.class.getPackage().getImplementationVersion(), "unknown");
        return new ServerThreads("Reactor Netty " + version, Map.of(
                EVENT_LOOP_THREADS, String.valueOf(LoopResources.DEFAULT_IO_WORKER_COUNT),
                BOUNDED_ELASTIC_THREADS, String.valueOf(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE)), 0);
    }

    /** logFields writes the thread knobs among {@code knobs} as key=value, in the startup line's order. */
    static String logFields(Map<String, String> knobs) {
        return LOGGED.stream().filter(knobs::containsKey).map(k -> k + "=" + knobs.get(k)).collect(Collectors.joining(" "));
    }
}
