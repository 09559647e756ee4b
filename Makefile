# threadbench: `make demo` runs the main job on a fresh machine, `make test` runs every test.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Ryuk cannot run here (no registry); we clean up our own containers by label.
export TESTCONTAINERS_RYUK_DISABLED := true
# Without this testcontainers aims at the bridge gateway; targets use host networking on loopback.
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1

GO ?= go
INTEGRATION_TIMEOUT ?= 25m
# NICED runs make test's host work of the side-by-side part that drives no container of its own niced: the static
# checks, the conformance job and every package's tests but cmd/orchestrator's (not JUnit, whose tests time a JVM's
# waits: niced, ReactiveTest's 200 waits of 500 ms ended 2,993 ms apart). Under cgroup v1 the engine's
# containers share one weight against each busy host thread's, so that this work took their CPU: in a clean clone
# a database server had 0.17 s of CPU in 3 s and a JVM served 0.2 req/s where its one thread serves 5; in a CI run
# three PostgreSQL servers were still in initdb after 60 s. None of it judges a figure the machine's speed moves.
NICED := nice -n 10
# A skipped test proves nothing, so a skip fails the suite unless its reason
# says it is for another operating system (scripts/testsummary).
OTHER_OS_SKIP := needs Linux|on this OS
TESTSUMMARY = $(GO) run ./scripts/testsummary -allow-skip '$(OTHER_OS_SKIP)'

.PHONY: all build test test-setup lint unit java-test fixtures integration integration-side integration-measure docker-up test-deps demo bench clean reference

all: build

build:
	CGO_ENABLED=0 $(GO) build -o bin/orchestrator ./cmd/orchestrator

## docker-up: make sure a Docker engine answers (installs and starts dockerd if needed)
docker-up:
	bash scripts/docker-up.sh

## test-deps: the programs the integration tests drive (chromium, ip, nsenter): installed from Debian's packages where missing, or named
test-deps:
	bash scripts/test-deps.sh

## test: everything: static checks, the Java targets' JUnit tests, every Go test (the integration build holds
## the unit tests too, so they run once, there) on the real engine and a real browser, the API's conformance.
##   First the engine, the browser and the fixture service's jar are made ready. Then, side by side: static checks,
##   JUnit, the conformance job (its stand-in daemon needs no engine, and its verdict does not depend on the machine's
##   speed) and every Go test that measures nothing (each part's output is shown whole when it ends). Last, alone on
##   the machine, the tests that measure: their figures need both CPUs quiet. The summary ends with the ten slowest
##   Go tests of both parts.
test:
	$(MAKE) --no-print-directory -j 2 --output-sync=target fixtures test-setup
	$(MAKE) --no-print-directory -j 4 --output-sync=target lint java-test conformance integration-side
	$(MAKE) --no-print-directory integration-measure
	cat .build/integration-side.json .build/integration-measure.json | $(TESTSUMMARY) -name integration -slowest-only

## reference: rewrite docs/reference from the code (the CLI's pages by cobra's generator, the API's endpoints and a
##   spec's fields from api/openapi.yaml); TestReferenceIsCurrent fails while it is stale
reference:
	$(GO) test -count=1 -run '^TestReferenceIsCurrent$$' ./cmd/orchestrator -update-reference

## test-setup: what make test installs before its integration tests run: the engine, the programs the tests drive
test-setup:
	bash scripts/docker-up.sh >/dev/null
	bash scripts/test-deps.sh

## lint: gofmt, go vet and staticcheck (pinned in go.mod's tool block) on the integration build, which holds
## every file but the conformance stand-in's (vetted by make conformance); no file is built only without the
## tag (checked here), so the plain build is a subset; the CLI builds for macOS too
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	@if git grep -l '^//go:build.*!integration' -- '*.go'; then echo "these files are left out of the integration build, which lint checks: lint the plain build too"; exit 1; fi
	$(NICED) $(GO) vet -tags integration ./...
	$(NICED) $(GO) tool staticcheck -tags integration ./...
	GOOS=darwin $(NICED) $(GO) build ./...

## unit: every package's unit tests; prints each failure and skip in full and the counts at the end
unit:
	$(GO) test -count=1 -json ./... | $(TESTSUMMARY) -name unit

java-test:
	cd targets/java && JAVA_HOME=$$(bash ../../scripts/find-jdk.sh) ./mvnw -B -ntp test

## fixtures: the service of one's own the integration tests run (testdata/springapp: a Spring Boot jar), and its
##   two other builds: on the legacy MySQL driver, and with one endpoint slower (orders-slower.jar)
fixtures:
	cd testdata/springapp && JAVA_HOME=$$(bash ../../scripts/find-jdk.sh) ./mvnw -B -q -ntp package -DskipTests && \
	  JAVA_HOME=$$(bash ../../scripts/find-jdk.sh) ./mvnw -B -q -ntp -Plegacy-driver package -DskipTests && \
	  JAVA_HOME=$$(bash ../../scripts/find-jdk.sh) ./mvnw -B -q -ntp -Pslower package -DskipTests

## integration: every Go test, unit and integration, on the real engine and a real browser; none may skip.
##   In cmd/orchestrator the tests that measure nothing run side by side, each on an attack lock of its own, then
##   those that measure run one at a time, alone (cmd/orchestrator/harness_integration_test.go); -parallel is high
##   so that the ones waiting to measure never hold back the others
integration: docker-up test-deps
	$(GO) test -count=1 -p 1 -parallel 64 -tags integration -timeout $(INTEGRATION_TIMEOUT) -json ./... | $(TESTSUMMARY) -name integration

# MEASURING names the tests whose verdicts read figures the machine's speed could move (cmd/orchestrator's
# TestMeasure*, held to that name by the harness), and TIMED_PACKAGES the packages whose unit tests time the load
# generator or the runner on real clocks: make test runs them last, alone, the packages beside each other (-p 4:
# they sleep far more than they compute, 35 CPU-seconds in 75 s here, where one at a time they took 136 s), and
# the vegeta engine's tests of seconds at low rates in parallel. internal/load's own run one at a time: in
# parallel some missed their timing (a warm-up's end 60 ms late, a server's idle close late). Every other Go
# test runs beside the static checks, JUnit and the conformance job.
MEASURING := ^TestMeasure
TIMED_PACKAGES := ./internal/load/... ./internal/runner/... ./internal/metrics/... ./targets/go/...
# LOAD_BESIDE names internal/load's tests that run in a process of their own beside the rest of the timed
# packages: about half of the package's 73 s, each one attack at a few hundred requests a second that
# mostly waits on its server's sleeps (a pool bound, a stall, think times, the connections a service time
# needs). The warm-up tests and the idle-close test, whose timing missed beside each other, stay in the
# first process, one at a time.
LOAD_BESIDE := ^(TestOpenConnectionsFollowTheServiceTime|TestThroughputWithinThePoolBound|TestStallShowsInLatency|TestSaturatedTargetDoesNotGrowThePool|TestIterationThinkTimeIsNotLatency|TestIterationMixedSteps|TestIterationThinkTimeEndsWithTheProfile|TestEngineClosedRamp)$$
INTEGRATION = $(GO) test -count=1 -p 1 -parallel 64 -tags integration -timeout $(INTEGRATION_TIMEOUT) -json

## integration-side: every Go test that measures nothing (make test runs it beside lint, JUnit and the conformance job),
##   in two processes: cmd/orchestrator's tests, and beside them every other package's, one package at a time. The
##   tests that start JVMs share the host's JVM slots across both (internal/jvmslots): a JVM's start takes seconds of CPU.
##   (go test -p 2 was tried: with no slot shared, a package's JVM starts beside cmd/orchestrator's two starved them.)
##   First cmd/orchestrator's TestMain alone builds the built-in images, so that the two never build one at once.
##   cmd/orchestrator's process sees one CPU (taskset -c 0): its runs then split no CPUs (the one-CPU path), and
##   their targets' containers, one CPU's quota each, may use either CPU. Pinned to the last CPU, as a measuring run
##   pins them, every JVM of the phase started on one CPU while the other idled once lint, JUnit and the
##   conformance job had ended (clean-clone run 17: the two JVM slots busy for the last 190 s of 400).
##   Its JVMs run with the JIT's first tier only (SIDE_JAVA_TOOL_OPTIONS, through THREADBENCH_JAVA_TOOL_OPTIONS):
##   no test of this part reads a JVM's figures, and C2's compiles were most of a Spring Boot start's CPU (11 CPU-s
##   with them, 5 without, here), on CPUs this part keeps saturated. The tests that measure run with none.
SIDE_JAVA_TOOL_OPTIONS := -XX:TieredStopAtLevel=1
integration-side: docker-up test-deps
	@mkdir -p .build
	$(INTEGRATION) -run '^$$' ./cmd/orchestrator > .build/side-images.json || { cat .build/side-images.json; exit 1; }
	packages=$$($(GO) list ./... | grep -v -x -F "$$($(GO) list $(TIMED_PACKAGES) ./cmd/orchestrator)"); \
	orchestrator=0; others=0; \
	export THREADBENCH_JAVA_TOOL_OPTIONS='$(SIDE_JAVA_TOOL_OPTIONS)'; \
	taskset -c 0 $(INTEGRATION) -skip '$(MEASURING)' ./cmd/orchestrator > .build/side-orchestrator.json & pid=$$!; \
	$(NICED) $(INTEGRATION) -skip '$(MEASURING)' $$packages > .build/side-packages.json || others=$$?; \
	wait $$pid || orchestrator=$$?; \
	cat .build/side-orchestrator.json .build/side-packages.json > .build/integration-side.json; \
	$(TESTSUMMARY) -name integration-side < .build/integration-side.json; \
	exit $$(( orchestrator > others ? orchestrator : others ))

## integration-measure: the Go tests that measure, and the timed packages, alone on the machine (internal/load
##   in two processes: LOAD_BESIDE)
integration-measure: docker-up test-deps
	@mkdir -p .build
	{ $(INTEGRATION) -run '$(MEASURING)' ./cmd/orchestrator || true; \
	  $(INTEGRATION) -run '$(LOAD_BESIDE)' ./internal/load > .build/measure-load-beside.json & \
	  $(INTEGRATION) -p 4 -skip '$(LOAD_BESIDE)' $(TIMED_PACKAGES) || true; \
	  wait; cat .build/measure-load-beside.json; } | tee .build/integration-measure.json | $(TESTSUMMARY) -name integration-measure

## conformance: schemathesis (pinned, from PyPI into .build/venv) fuzzes the daemon's API against api/openapi.yaml,
## with runs executed by a stand-in (no Docker); about two minutes, 0 server errors and 0 schema violations
.PHONY: conformance
conformance:
	GO=$(GO) $(NICED) bash scripts/conformance.sh

## demo: on a fresh machine, bring the engine up, build the three targets and compare them under load
demo: docker-up build
	./bin/orchestrator targets build
	./bin/orchestrator run --targets go,java-platform,java-virtual --profile demo-heavy --endpoint heavy --param duration=200

## bench: the load generator against wrk, the open model's sweep, a 1M-request soak and the 10,000-run history list (about 7 minutes; installs nothing)
bench: docker-up
	bash scripts/bench.sh all

clean:
	rm -rf bin targets/java/target
