package targets

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
)

// DefaultHealthTimeout bounds the wait for a target to answer /health. It
// bounds a hang, not a start: a target that exits fails at once, whatever
// the bound. A Spring Boot service on its one CPU takes 5-15 s to get ready
// on a quiet machine, but a busy engine (other JVMs starting, another run
// loading the same CPU) has stretched one start past a minute, with the
// service still logging its way up (CI, stop 41: "Started in 45.94 seconds
// (process running for 59.857)" against a 60 s bound). Three minutes leaves
// such a start room on any machine of this kind and still ends a hang.
const DefaultHealthTimeout = 3 * time.Minute

// Health polling: how often, how long one probe may take, and how much of
// the container's log an error quotes.
const (
	healthInterval  = 100 * time.Millisecond
	probeTimeout    = time.Second
	errorLogLines   = 30
	removeTimeout   = 30 * time.Second
	createTimeout   = 60 * time.Second
	stopGracePeriod = 5 * time.Second
)

// StartOptions say how to run a target.
type StartOptions struct {
	Limits        bench.Limits      // CPUs and memory; zero values leave the resource unlimited
	CPUSet        string            // CPUs the container may run on, e.g. "1"; empty for any
	Java          bench.JavaOptions // Java targets only
	RunID         string            // recorded in the io.threadbench.run label
	HealthTimeout time.Duration     // 0 means DefaultHealthTimeout
	Port          int               // the port it listens on; 0 picks a free one
	MetricsPort   int               // the metrics port of an entry with a MetricsPortEnv; 0 picks a free one
	Env           map[string]string // extra environment, applied last
	Downstream    string            // DOWNSTREAM_URL, the downstream service's base URL
	Database      map[string]string // the run's database server's variables (bench.DatabaseConn.Env)
	Workers       int               // requests served at once (a downstream's pool); 0 for the default
	// Requests are the workload's, for a target of one's own: its
	// readiness where it has no health path, and its pre-check.
	Requests []bench.Request
	// Record starts a JVM's flight recording (RunsJVM entries only); a JVM
	// that will not start with it is started again without.
	Record bool
	// NoThreadSamples leaves the thread sampler out of a recorded JVM.
	NoThreadSamples bool

	bind string // BIND_ADDR: the engine's, set by StartTarget
}

func (o StartOptions) request() bench.StartRequest {
	return bench.StartRequest{RunID: o.RunID, Limits: o.Limits, CPUSet: o.CPUSet, Java: o.Java, Downstream: o.Downstream, Database: o.Database, Workers: o.Workers,
		Requests: o.Requests, Record: o.Record, NoThreadSamples: o.NoThreadSamples}
}

// Start starts a target on the runtime's engine; req.Engine must name it
// (or be empty for the local one). Engines.Start picks the runtime.
func (r *Runtime) Start(ctx context.Context, target string, img bench.ImageInfo, req bench.StartRequest) (bench.Target, error) {
	if req.Engine != "" && req.Engine != r.engine.Name {
		return nil, fmt.Errorf("start target %s: asked for engine %s of the runtime of engine %s", target, req.Engine, r.engine.Name)
	}
	inst, err := r.StartTarget(ctx, target, img, StartOptions{Limits: req.Limits, CPUSet: req.CPUSet, Java: req.Java, RunID: req.RunID,
		Downstream: req.Downstream, Database: req.Database, Workers: req.Workers, Requests: req.Requests, Record: req.Record,
		NoThreadSamples: req.NoThreadSamples})
	if err != nil {
		return nil, err
	}
	return inst, nil
}

// StartTarget runs a target ("name" or "name@variant") from img and returns
// once it answers GET /health with 200. The container uses host networking
// and listens on the engine's bind address only: 127.0.0.1 on the local
// engine, the configured one on a remote engine, where the target is
// reached at the engine's address. If the target exits or stays unhealthy,
// StartTarget removes the container and returns an EUNAVAILABLE
// *bench.Error quoting its log.
func (r *Runtime) StartTarget(ctx context.Context, target string, img bench.ImageInfo, opts StartOptions) (*Instance, error) {
	entry, err := r.catalog.Lookup(target)
	if err != nil {
		return nil, err
	}
	entry = entry.resolve(target, opts.Java.JDK)
	if entry.Listening.Port != 0 {
		opts.Port = entry.Listening.Port
	}
	// A port picked here may be taken by another process in the seconds
	// before the target binds it (a clean clone's tests lost starts so,
	// their neighbours starting servers of their own): the target is
	// started again on others. A port the caller or the image fixed is
	// not changed.
	for try := 1; try <= startTries; try++ {
		var inst *Instance
		inst, err = r.startOnPorts(ctx, entry, target, img, opts)
		if err == nil || opts.Port != 0 || ctx.Err() != nil || !errors.As(err, new(portTakenError)) {
			return inst, err
		}
		r.logger.Printf("target %s: its port was taken before it bound it; starting it on another (try %d of %d)", target, try, startTries)
	}
	return nil, err
}

// startTries bounds the starts of a target whose port was taken under it.
const startTries = 3

// startOnPorts starts the target on the port opts give or on a free one.
func (r *Runtime) startOnPorts(ctx context.Context, entry Entry, target string, img bench.ImageInfo, opts StartOptions) (*Instance, error) {
	port, err := r.choose(opts.Port)
	if err != nil {
		return nil, err
	}
	if entry.MetricsPortEnv != "" {
		if opts.MetricsPort, err = r.chooseMetricsPort(opts.MetricsPort, port); err != nil {
			return nil, err
		}
	}
	opts.bind = r.engine.bindAddress()
	env, launched, err := ContainerEnv(entry, target, port, opts)
	if err != nil {
		return nil, err
	}
	if entry.RunsJVM() && r.javaTool != "" {
		env = r.withJavaToolOptions(ctx, img, env)
	}
	if opts.Record && entry.RunsJVM() {
		return r.launchRecorded(ctx, entry, target, img, opts, port, env, launched)
	}
	return r.launch(ctx, entry, target, img, opts, port, env, launched)
}

// launch creates and starts the target's container with env and returns
// once it is healthy; a container that is not is removed.
func (r *Runtime) launch(ctx context.Context, entry Entry, target string, img bench.ImageInfo, opts StartOptions, port int, env, launched map[string]string, files ...containerFile) (*Instance, error) {
	instance := newInstanceID()
	// The create and start calls are not cancelled half-way: a cancelled
	// create request does not stop the engine from creating the container a
	// moment later, out of reach. They run to the end (bounded), and a
	// cancel is honoured after, by removing what they made.
	createCtx, cancelCreate := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	id, err := r.createAndStart(createCtx, containerName(entry.Name, port), r.containerConfig(entry, img, env, opts, instance), hostConfig(opts), files...)
	cancelCreate()
	inst := &Instance{entry: entry, name: target, image: img, host: r.engine.Address, port: port, metricsPort: opts.MetricsPort,
		id: id, runtime: r, downstream: opts.Downstream, instance: instance, requests: opts.Requests, runID: opts.RunID, env: env}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		inst.remove(ctx)
		return nil, fmt.Errorf("start target %s on engine %s: %w", target, r.engine.Name, err)
	}
	if err := inst.waitHealthy(ctx, healthTimeout(entry, opts, r.healthTimeout)); err != nil {
		inst.remove(ctx)
		return nil, err
	}
	inst.findMetrics(ctx)
	inst.settings = settings(entry, img, port, launched, opts)
	if v, ok := env[jfr.EnvVar]; ok && entry.RunsJVM() && r.javaTool != "" {
		inst.settings[settingToolOptions] = v
	}
	return inst, nil
}

// ContainerEnv returns the environment a target runs with on port: the
// contract's PORT, BIND_ADDR and TARGET_NAME (the reference, variant
// included), its metrics port (opts.MetricsPort) under the entry's
// MetricsPortEnv, the entry's own Env, what its recipe's runtime needs (JVM
// flags, GOMEMLIMIT), then opts.Env, which may override any of them. It
// also returns the recipe's settings worth recording.
func ContainerEnv(entry Entry, target string, port int, opts StartOptions) (env, settings map[string]string, err error) {
	// The database's variables first: a variant's or an axis' own wins
	// (an axis of pool sizes), and DB_POOL follows a pool size it sets.
	env = cloneEnv(opts.Database)
	maps.Copy(env, entry.Env)
	if pool := poolOverride(entry.Env, opts.Database); pool != "" {
		env[bench.EnvDBPool] = pool
	}
	env["PORT"] = strconv.Itoa(port)
	env["BIND_ADDR"] = localAddress
	if opts.bind != "" {
		env["BIND_ADDR"] = opts.bind
	}
	env["TARGET_NAME"] = target
	if entry.MetricsPortEnv != "" && opts.MetricsPort != 0 {
		env[entry.MetricsPortEnv] = strconv.Itoa(opts.MetricsPort)
	}
	if opts.Downstream != "" {
		env["DOWNSTREAM_URL"] = opts.Downstream
	}
	if l := entry.Listening; l.PortEnv != "" {
		env[l.PortEnv] = env["PORT"]
	}
	if l := entry.Listening; l.BindEnv != "" {
		env[l.BindEnv] = env["BIND_ADDR"]
	}
	launch, settings, err := entry.Recipe.launch(entry, opts.request())
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(env, launch)
	maps.Copy(env, opts.Env)
	return env, settings, nil
}

// poolOverride is the pool size a variant's or axis' environment sets
// through one of the variables that carry the database's (its datasource's
// pool variable, DB_POOL); "" when it sets none.
func poolOverride(own, db map[string]string) string {
	size := db[bench.EnvDBPool]
	if size == "" {
		return ""
	}
	for k, v := range db {
		if k != bench.EnvDBPort && v == size {
			if o, ok := own[k]; ok && o != size {
				return o
			}
		}
	}
	return ""
}

// healthTimeout is the bound on a target's wait for health: the run's,
// else its entry's, else the operator's (RuntimeOptions.HealthTimeout),
// else DefaultHealthTimeout.
func healthTimeout(entry Entry, opts StartOptions, operator time.Duration) time.Duration {
	switch {
	case opts.HealthTimeout > 0:
		return opts.HealthTimeout
	case entry.Listening.HealthTimeout > 0:
		return entry.Listening.HealthTimeout
	case operator > 0:
		return operator
	}
	return DefaultHealthTimeout
}

// containerConfig describes the target's container: its image, its
// environment and the labels Cleanup and remove find it by.
func (r *Runtime) containerConfig(entry Entry, img bench.ImageInfo, env map[string]string, opts StartOptions, instance string) *container.Config {
	vars := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		vars = append(vars, k+"="+env[k])
	}
	return &container.Config{
		Image: img.Ref,
		Env:   vars,
		Labels: map[string]string{
			LabelManaged:  "true",
			LabelTarget:   entry.Name,
			LabelRun:      opts.RunID,
			LabelHistory:  r.history,
			LabelInstance: instance,
		},
	}
}

// hostConfig gives the container host networking and the run's limits.
func hostConfig(opts StartOptions) *container.HostConfig {
	hc := &container.HostConfig{NetworkMode: "host"}
	hc.NanoCPUs = int64(opts.Limits.CPUs * 1e9)
	hc.CpusetCpus = opts.CPUSet
	if opts.Limits.MemoryMiB > 0 {
		// Swap equal to memory means no swap: a target that needs
		// more is killed, not slowed down unmeasurably.
		hc.Memory = opts.Limits.MemoryMiB << 20
		hc.MemorySwap = hc.Memory
	}
	return hc
}

// containerName names the container for people reading docker ps; the
// random suffix keeps it from clashing with a container a crash left behind.
func containerName(target string, port int) string {
	return fmt.Sprintf("threadbench-%s-%d-%06x", target, port, rand.IntN(1<<24))
}

// choosePort returns port if it is free where the engine's targets listen,
// or a free one for 0. A busy port would let /health answer from someone
// else's server.
func (r *Runtime) choosePort(port int) (int, error) {
	free := func(p int) error { return checkRemotePort(r.engine.Address, p) }
	where := r.engine.Address
	if !r.engine.Remote() {
		free = func(p int) error { _, err := freeLocalPort(localAddress, p); return err }
		where = localAddress
	}
	if port != 0 {
		return port, free(port)
	}
	// Below the ephemeral range, here as on a remote host: a port the
	// kernel hands out (0) is free when asked but is the kind outgoing
	// connections take, and a JVM binds it seconds later. A clean-clone
	// run lost a target so: "Port 37761 was already in use", the load of
	// the tests beside it holding thousands of connections.
	for range remotePortTries {
		p := remotePortMin + rand.IntN(remotePortMax-remotePortMin+1)
		if free(p) == nil {
			return p, nil
		}
	}
	return 0, bench.Errorf(bench.ECONFLICT, "no free port found at %s (engine %s) in %d tries", where, r.engine.Name, remotePortTries)
}

// chooseMetricsPort returns the metrics port: want if it is free, else a
// free one other than the target's own port.
func (r *Runtime) chooseMetricsPort(want, port int) (int, error) {
	if want == port && want != 0 {
		return 0, bench.Errorf(bench.EINVALID, "metrics port %d is the target's own port", want)
	}
	for range remotePortTries {
		p, err := r.choose(want)
		if err != nil || p != port {
			return p, err
		}
	}
	return 0, bench.Errorf(bench.ECONFLICT, "no free metrics port found at %s (engine %s)", r.engine.Address, r.engine.Name)
}

// The ports targets are given, here and on a remote host: below Linux's
// ephemeral range (32768 on), where the host's own outgoing connections
// take theirs.
const (
	remotePortMin   = 20000
	remotePortMax   = 32767
	remotePortTries = 20
	portProbe       = 500 * time.Millisecond
)

// freeLocalPort returns port if it is free on addr here, or any free port for 0.
func freeLocalPort(addr string, port int) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
	if err != nil {
		return 0, bench.Errorf(bench.ECONFLICT, "port %d on %s is not free: %v", port, addr, err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// checkRemotePort says whether a port of another host answers: a port
// that accepts a connection is someone's. One that refuses it, or does not
// answer at all, is taken as free; the health check tells the rest.
func checkRemotePort(addr string, port int) error {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(addr, strconv.Itoa(port)), portProbe)
	if err != nil {
		return nil
	}
	conn.Close()
	return bench.Errorf(bench.ECONFLICT, "port %d at %s is in use", port, addr)
}

// waitHealthy polls /health until it answers 200, the container exits, the
// timeout passes or ctx is done, and records the startup time.
func (in *Instance) waitHealthy(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: probeTimeout}
	ticker := time.NewTicker(healthInterval)
	defer ticker.Stop()
	ready := in.readiness()
	for {
		probeErr := ready(ctx, hc)
		if probeErr == nil && in.metricsPort != 0 {
			// A metrics server of its own may start a moment after the
			// endpoints: the target is ready when both answer.
			probeErr = probe(ctx, hc, in.MetricsURL())
		}
		if probeErr == nil {
			in.startup = in.sinceStarted(ctx)
			return nil
		}
		st, err := in.State(ctx)
		if err != nil {
			return fmt.Errorf("wait for target %s: %w", in.entry.Name, err)
		}
		if !st.Running {
			return in.failure(ctx, "exited before it was healthy (exit code %d, OOM-killed %t)", st.ExitCode, st.OOMKilled)
		}
		if time.Now().After(deadline) {
			return in.failure(ctx, "was not healthy within %s (last probe: %v)", timeout, probeErr)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for target %s: %w", in.entry.Name, ctx.Err())
		case <-ticker.C:
		}
	}
}

// probe returns nil when url answers 200.
func probe(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{url: url, code: resp.StatusCode, status: resp.Status}
	}
	return nil
}

// statusError is a probe answered with another status than 200.
type statusError struct {
	url    string
	code   int
	status string
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: %s", e.url, e.status) }

// failure returns an EUNAVAILABLE error about the target that quotes the
// end of its log, which usually says why.
func (in *Instance) failure(ctx context.Context, format string, args ...any) error {
	msg := fmt.Sprintf("target %s ", in.entry.Name) + fmt.Sprintf(format, args...)
	logs, err := in.Logs(context.WithoutCancel(ctx), failureLogLines)
	switch {
	case err != nil:
		msg += fmt.Sprintf("; its log could not be read: %v", err)
	case strings.TrimSpace(logs) == "":
		msg += "; its log is empty"
	default:
		if said := tellingLines(logs); len(said) > 0 {
			msg += "; it said: " + strings.Join(said, " / ")
		}
		msg += "; its log ends:\n" + lastLines(logs, errorLogLines)
	}
	err = bench.Errorf(bench.EUNAVAILABLE, "%s", msg)
	if portInUse(logs) {
		return portTakenError{err}
	}
	return err
}

// portInUse says whether a target's log says it could not listen because
// its port was in use: Spring Boot's "Port 20451 was already in use", Go's
// "bind: address already in use", Netty's "Address already in use".
func portInUse(logs string) bool {
	return strings.Contains(strings.ToLower(logs), "already in use")
}

// portTakenError is the failure of a target that found its port taken.
type portTakenError struct{ err error }

func (e portTakenError) Error() string { return e.err.Error() }
func (e portTakenError) Unwrap() error { return e.err }

// sinceStarted returns the time since the engine started the container, or
// 0 if the engine does not say.
func (in *Instance) sinceStarted(ctx context.Context) time.Duration {
	st, err := in.runtime.containerState(ctx, in.id)
	if err != nil {
		return 0
	}
	started, err := time.Parse(time.RFC3339Nano, st.StartedAt)
	if err != nil {
		return 0
	}
	return time.Since(started)
}

// remove removes a container that failed to start, even when ctx is done:
// by its instance label, so that a container whose create call failed
// after the engine made it (a timeout) is removed too.
func (in *Instance) remove(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if _, err := in.runtime.removeLabelled(ctx, LabelInstance+"="+in.instance); err != nil && in.runtime.logger != nil {
		in.runtime.logger.Printf("remove the container of a failed start (%s): %v", in.instance, err)
	}
}

// newInstanceID names one start of a container.
func newInstanceID() string { return fmt.Sprintf("%016x", rand.Uint64()) }

// settings lists everything about how the target ran that results should
// record: the container's, the recipe's (launched), and extra environment.
func settings(entry Entry, img bench.ImageInfo, port int, launched map[string]string, opts StartOptions) map[string]string {
	s := map[string]string{
		"image":       img.Ref,
		"imageId":     img.ID,
		"runtime":     img.Runtime,
		"networkMode": "host",
		"bindAddress": opts.bind,
		"port":        strconv.Itoa(port),
		"threadModel": entry.ThreadModel,
		"cpus":        strconv.FormatFloat(opts.Limits.CPUs, 'f', -1, 64),
		"memoryMiB":   strconv.FormatInt(opts.Limits.MemoryMiB, 10),
		"cpuset":      opts.CPUSet,
	}
	if img.BaseImage != "" {
		s["baseImage"] = img.BaseImage
	}
	if opts.MetricsPort != 0 {
		s["metricsPort"] = strconv.Itoa(opts.MetricsPort)
	}
	maps.Copy(s, launched)
	if opts.Downstream != "" {
		s["downstream"] = opts.Downstream
	}
	if db := opts.Database; db != nil {
		s["database"] = db[bench.EnvDBKind] + " " + net.JoinHostPort(db[bench.EnvDBHost], db[bench.EnvDBPort])
		s["database.pool"] = db[bench.EnvDBPool]
		if pool := poolOverride(entry.Env, db); pool != "" {
			s["database.pool"] = pool
		}
	}
	for k, v := range entry.Env {
		s["env."+k] = v
	}
	for k, v := range entry.AxisValues {
		s["axis."+k] = v
	}
	for k, v := range opts.Env {
		s["env."+k] = v
	}
	return s
}
