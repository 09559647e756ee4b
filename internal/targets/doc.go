// Package targets knows the three target servers threadbench compares and
// runs them: the catalog (which targets exist, where their metrics are), the
// image builds (Go binary on scratch; the Spring Boot jar on a JRE base), and
// the containers they run in, on the Docker engine through testcontainers-go.
//
// Every target runs with host networking on its own loopback port, under the
// same CPU and memory limits, labelled io.threadbench.managed=true so that
// Cleanup can remove whatever a crashed run left behind (the testcontainers
// reaper is disabled: it would need an image pulled from a registry).
package targets
