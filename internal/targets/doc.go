// Package targets knows the three target servers threadbench compares and
// runs them: the catalog (which targets exist, where their metrics are), the
// image builds (Go binary on scratch; the Spring Boot jar on a JRE base), and
// the containers they run in, on Docker engines through the Docker engine
// API client (github.com/moby/moby/client).
//
// A Runtime drives one engine: the local one (DOCKER_HOST or the default
// socket), or a remote one the operator configured (EngineConfig: tcp://
// with TLS files, ssh://, unix://). Engines puts them behind
// bench.TargetRuntime, by name. Every target runs with host networking on
// its own port, bound to its engine's address (127.0.0.1 on the local
// engine), under the same CPU and memory limits, labelled
// io.threadbench.managed=true and with its history, so that Cleanup can
// remove whatever a crashed run left behind on each engine. Images are
// tagged by the hash of their inputs, on whichever engine they are built
// or loaded into.
package targets
