/**
 * The reactive thread model ({@code THREAD_MODEL=reactive}): the contract's
 * endpoints on Spring WebFlux and Reactor Netty, written as a WebFlux user
 * writes them. A request is served by one of a few event-loop threads; a
 * wait holds no thread; blocking work (a native call, a lock, JDBC, the
 * blocking HTTP client) runs on Reactor's boundedElastic scheduler. What is
 * not servlet-specific (parameters, the work itself, the downstream's
 * classification, the error bodies) is shared with the servlet models in
 * {@code io.threadbench.server}; every bean here loads in the reactive model only.
 */
package io.threadbench.server.reactive;
