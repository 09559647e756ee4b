package targets

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	stdlog "log"
	"os"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
)

// Labels on every container the runtime starts.
const (
	LabelManaged  = "io.threadbench.managed"  // "true"
	LabelTarget   = "io.threadbench.target"   // catalog name
	LabelRun      = "io.threadbench.run"      // run ID, when started for a run
	LabelHistory  = "io.threadbench.history"  // the identity of the history the run is kept in
	LabelInstance = "io.threadbench.instance" // one start, so that a failed one is removed whatever became of it
)

// Labels on the images Build produces, read back when an image is cached.
const (
	labelInputs  = "io.threadbench.inputs"
	labelRuntime = "io.threadbench.runtime"
	labelBase    = "io.threadbench.base-image"
)

// engineTimeout bounds the ping that tells whether an engine answers.
const engineTimeout = 10 * time.Second

// RuntimeOptions configure a Runtime.
type RuntimeOptions struct {
	// RepoRoot is the threadbench repository, whose targets/ Build reads.
	// Empty means $THREADBENCH_REPO, else the nearest parent of the working
	// directory with threadbench's go.mod. Only Build needs it.
	RepoRoot string
	// Sources are the built-in targets' sources embedded in the binary
	// (threadbench.TargetSources), built from where there is no checkout;
	// nil means a checkout is needed.
	Sources fs.FS
	// Log receives the runtime's own chatter; nil discards it.
	Log io.Writer
	// Catalog is the targets the runtime builds and starts; nil means
	// DefaultCatalog().
	Catalog *Catalog
	// JavaBaseImage is the JRE image Java targets are built on when a build
	// names none; empty means DefaultJavaBaseImage (or an assembled JRE).
	JavaBaseImage string
	// JavaBaseImages are the JRE images of other Java majors (21: an
	// eclipse-temurin:21-jre from a registry); a major without one gets
	// eclipse-temurin:<major>-jre, or a JRE assembled here.
	JavaBaseImages map[int]string
	// History is the identity of the run history the runtime's containers
	// belong to (store.DB.HistoryID); Cleanup removes only those.
	History string
	// Engine is the engine the runtime drives; the zero value is the local
	// one.
	Engine EngineConfig
	// JavaToolOptions are JVM options added to every JVM target's
	// JAVA_TOOL_OPTIONS (after the image's own, before a recording's):
	// the operator's, for every run (config javaToolOptions), never a
	// run's own. Empty adds none.
	JavaToolOptions string
	// HealthTimeout bounds the wait for a target whose entry and run name
	// no bound of their own (the operator's, config healthTimeout: a
	// machine slower than DefaultHealthTimeout allows for); 0 means
	// DefaultHealthTimeout.
	HealthTimeout time.Duration
	// ImageSource is an engine whose images this one loads rather than
	// build them again when their inputs hash is the same (the local
	// engine, for a remote one); nil builds every image here.
	ImageSource *Runtime
}

// Runtime builds target images and runs targets in containers on one Docker
// engine. Engines puts several behind bench.TargetRuntime. It is safe for
// concurrent use.
type Runtime struct {
	docker   *client.Client
	engine   EngineConfig
	source   *Runtime // where images may be loaded from; nil for none
	logger   *stdlog.Logger
	repoRoot string
	sources  fs.FS
	catalog  *Catalog

	javaBaseImage  string
	javaBaseImages map[int]string
	history        string
	javaTool       string            // RuntimeOptions.JavaToolOptions
	healthTimeout  time.Duration     // RuntimeOptions.HealthTimeout
	bases          map[string]string // resolved JRE bases, by major and wanted image

	buildMu sync.Mutex // one build at a time: they share CPU and the java image

	samplerOnce sync.Once
	sampler     sampler // the thread sampler's jar, or why there is none

	// choose returns the port a target listens on: choosePort's.
	choose func(port int) (int, error)
}

// NewRuntime connects to a Docker engine: the local one (DOCKER_HOST or
// /var/run/docker.sock), which must answer (else an EUNAVAILABLE
// *bench.Error), or the remote one opts.Engine configures, which is asked
// nothing until used, so that a remote host being down fails only the runs
// that need it. The API version is negotiated; 1.41 is enough.
func NewRuntime(opts RuntimeOptions) (*Runtime, error) {
	engine := opts.Engine.withDefaults()
	docker, err := engine.newClient()
	if err != nil {
		return nil, engineUnavailable(engine, err)
	}
	if !engine.Remote() {
		ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
		defer cancel()
		if _, err := docker.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
			docker.Close()
			return nil, engineUnavailable(engine, err)
		}
	}
	catalog := opts.Catalog
	if catalog == nil {
		catalog = DefaultCatalog()
	}
	logOut := opts.Log
	if logOut == nil {
		logOut = io.Discard
	}
	r := &Runtime{docker: docker, engine: engine, source: opts.ImageSource, logger: stdlog.New(logOut, "", stdlog.LstdFlags),
		repoRoot: opts.RepoRoot, sources: opts.Sources, catalog: catalog, javaBaseImage: opts.JavaBaseImage, javaBaseImages: opts.JavaBaseImages,
		bases: map[string]string{}, history: opts.History, javaTool: strings.TrimSpace(opts.JavaToolOptions),
		healthTimeout: opts.HealthTimeout}
	r.choose = r.choosePort
	return r, nil
}

// engineUnavailable says which engine does not answer, and why.
func engineUnavailable(engine EngineConfig, err error) error {
	why := strings.ReplaceAll(err.Error(), "\n", "; ")
	if engine.Remote() {
		return bench.Errorf(bench.EUNAVAILABLE, "engine %s at %s does not answer (%s)", engine.Name, engine.Host, why)
	}
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = "unix:///var/run/docker.sock"
	}
	return bench.Errorf(bench.EUNAVAILABLE, "no Docker engine answers at %s (%s); run scripts/docker-up.sh", host, why)
}

// EngineName returns the name of the engine the runtime drives.
func (r *Runtime) EngineName() string { return r.engine.Name }

// Catalog returns the targets the runtime builds and starts.
func (r *Runtime) Catalog() *Catalog { return r.catalog }

// Client returns the Docker API client, for readers of container stats.
func (r *Runtime) Client() client.APIClient { return r.docker }

// Close releases the connection to the engine. Running instances keep
// running; stop them first.
func (r *Runtime) Close() error {
	return r.docker.Close()
}

// Cleanup removes the containers, running or not, that runs of this
// runtime's history left behind (a crashed process), and returns how many:
// those of other histories on the same engine are not its to touch.
func (r *Runtime) Cleanup(ctx context.Context) (removed int, err error) {
	return r.removeLabelled(ctx, LabelManaged+"=true", LabelHistory+"="+r.history)
}

// CleanupRun removes the containers, running or not, started for one run.
func (r *Runtime) CleanupRun(ctx context.Context, runID string) (removed int, err error) {
	if runID == "" {
		return 0, bench.Errorf(bench.EINVALID, "CleanupRun needs a run ID")
	}
	return r.removeLabelled(ctx, LabelManaged+"=true", LabelRun+"="+runID)
}

// removeLabelled removes the containers that carry every one of labels.
func (r *Runtime) removeLabelled(ctx context.Context, labels ...string) (removed int, err error) {
	list, err := r.docker.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", labels...),
	})
	if err != nil {
		return 0, fmt.Errorf("list threadbench containers: %w", err)
	}
	for _, c := range list.Items {
		_, err := r.docker.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			return removed, fmt.Errorf("remove container %.12s: %w", c.ID, err)
		}
		removed++
	}
	return removed, nil
}

// Engine describes the engine and the host it runs on.
func (r *Runtime) Engine(ctx context.Context) (bench.EngineInfo, error) {
	res, err := r.docker.Info(ctx, client.InfoOptions{})
	if err != nil {
		return bench.EngineInfo{}, fmt.Errorf("docker info on engine %s: %w", r.engine.Name, err)
	}
	info := res.Info
	return bench.EngineInfo{
		Name:    r.engine.Name,
		Remote:  r.engine.Remote(),
		Address: r.engine.Address,
		Machine: bench.Machine{
			Host:          info.Name,
			OS:            info.OperatingSystem,
			Kernel:        info.KernelVersion,
			CPUs:          info.NCPU,
			MemoryBytes:   info.MemTotal,
			DockerVersion: info.ServerVersion,
			CgroupVersion: info.CgroupVersion,
		},
		APIVersion: r.docker.ClientVersion(),
	}, nil
}
