package targets

import (
	"context"
	"fmt"
	"io"
	stdlog "log"
	"os"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

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
	// Log receives testcontainers-go's own chatter; nil discards it.
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
}

// Runtime builds target images and runs targets in containers on one Docker
// engine: it implements bench.TargetRuntime. It is safe for concurrent use.
type Runtime struct {
	provider *testcontainers.DockerProvider
	docker   client.APIClient
	logger   tclog.Logger
	repoRoot string
	catalog  *Catalog

	javaBaseImage  string
	javaBaseImages map[int]string
	history        string
	bases          map[string]string // resolved JRE bases, by major and wanted image

	buildMu sync.Mutex // one build at a time: they share CPU and the java image
}

var envDefaultsOnce sync.Once

// NewRuntime connects to the Docker engine (DOCKER_HOST or
// /var/run/docker.sock; the API version is negotiated, 1.41 is enough) and
// returns an EUNAVAILABLE *bench.Error when none answers.
func NewRuntime(opts RuntimeOptions) (*Runtime, error) {
	envDefaultsOnce.Do(setTestcontainersDefaults)
	logger := tclog.NewNoopLogger()
	if opts.Log != nil {
		logger = stdlog.New(opts.Log, "", stdlog.LstdFlags)
	}
	// The connection banner goes to the library's process-wide logger.
	tclog.SetDefault(logger)
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithLogger(logger))
	if err != nil {
		return nil, engineUnavailable(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	defer cancel()
	if _, err := provider.Client().Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		provider.Close()
		return nil, engineUnavailable(err)
	}
	catalog := opts.Catalog
	if catalog == nil {
		catalog = DefaultCatalog()
	}
	return &Runtime{provider: provider, docker: provider.Client(), logger: logger, repoRoot: opts.RepoRoot,
		catalog: catalog, javaBaseImage: opts.JavaBaseImage, javaBaseImages: opts.JavaBaseImages, bases: map[string]string{}, history: opts.History}, nil
}

// setTestcontainersDefaults turns the testcontainers reaper off unless the
// user chose otherwise: it runs from an image that would have to be pulled,
// and the runtime removes its own containers by label (Stop, Cleanup).
// testcontainers reads its configuration from the environment once.
func setTestcontainersDefaults() {
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
}

func engineUnavailable(err error) error {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = "unix:///var/run/docker.sock"
	}
	why := strings.ReplaceAll(err.Error(), "\n", "; ")
	return bench.Errorf(bench.EUNAVAILABLE, "no Docker engine answers at %s (%s); run scripts/docker-up.sh", host, why)
}

// Catalog returns the targets the runtime builds and starts.
func (r *Runtime) Catalog() *Catalog { return r.catalog }

// Client returns the Docker API client, for readers of container stats.
func (r *Runtime) Client() client.APIClient { return r.docker }

// Close releases the connection to the engine. Running instances keep
// running; stop them first.
func (r *Runtime) Close() error {
	return r.provider.Close()
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

// Engine implements bench.TargetRuntime: what the engine runs on.
func (r *Runtime) Engine(ctx context.Context) (bench.EngineInfo, error) {
	res, err := r.docker.Info(ctx, client.InfoOptions{})
	if err != nil {
		return bench.EngineInfo{}, fmt.Errorf("docker info: %w", err)
	}
	info := res.Info
	return bench.EngineInfo{
		Version:       info.ServerVersion,
		APIVersion:    r.docker.ClientVersion(),
		CgroupVersion: info.CgroupVersion,
		OS:            info.OperatingSystem,
		Kernel:        info.KernelVersion,
		CPUs:          info.NCPU,
		MemoryBytes:   info.MemTotal,
	}, nil
}

var _ bench.TargetRuntime = (*Runtime)(nil)
