package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Recipe says how a kind of target is built into an image and what its
// runtime needs in its environment to start. GoBinary and MavenJar are the
// recipes there are; a new language adds one.
type Recipe interface {
	// Runtime names the language runtime: bench.RuntimeGo, bench.RuntimeJava.
	Runtime() string
	// build makes the entry's image for a variant unless one built from
	// the same inputs exists.
	build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error)
	// launch returns the environment the runtime needs for req, and the
	// settings a result should record about it.
	launch(e Entry, req bench.StartRequest) (env, settings map[string]string, err error)
	// missing says what this host lacks to build the recipe's images (a
	// toolchain), "" when nothing: checked before a run is accepted, so
	// that a run that can only fail at build time is refused instead.
	missing() string
}

// buildJob is one image to build.
type buildJob struct {
	root    string // the repository
	entry   Entry
	variant string
	opts    BuildOptions
}

// javaMajor is the Java major the job builds on: its variant's JDK (an
// entry whose variants span several axes: "21,boot=3.5"), else the
// variant itself ("21").
func (j buildJob) javaMajor() (int, error) {
	if v := j.entry.Variations[j.variant]; v.JDK != 0 {
		return v.JDK, nil
	}
	major, err := strconv.Atoi(j.variant)
	if err != nil {
		return 0, bench.Errorf(bench.EINVALID, "%s: JDK %q is not a Java major", j.entry.Name, j.variant)
	}
	return major, nil
}

// sourceDir is the entry's source directory on disk.
func (j buildJob) sourceDir() string {
	return filepath.Join(j.root, filepath.FromSlash(j.entry.Source))
}

// GoBinary builds the entry's Source as a static Go binary (CGO_ENABLED=0)
// in a FROM-scratch image, with the host's go command.
type GoBinary struct{}

// Runtime implements Recipe.
func (GoBinary) Runtime() string { return bench.RuntimeGo }

// goDockerfile packages the static Go binary and nothing else.
const goDockerfile = `FROM scratch
COPY server /server
ENTRYPOINT ["/server"]
`

func (GoBinary) missing() string {
	if _, err := exec.LookPath("go"); err != nil {
		return "the go command is not on PATH (Go targets are compiled on this host): install Go, or put it on the daemon's PATH"
	}
	return ""
}

func (GoBinary) build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error) {
	goVersion, err := hostGoVersion(ctx, job.root)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	hash, err := InputsHash(job.root, []string{job.entry.Source, "go.mod", "go.sum"},
		"GOVERSION="+goVersion, "GOARCH="+runtime.GOARCH, goDockerfile)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := job.entry.Repository + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref, job.opts.log()); ok || err != nil {
		return info, err
	}
	labels := map[string]string{labelInputs: hash, labelRuntime: goVersion, labelBase: "scratch"}
	return r.buildFromTemp(ctx, job, ref, goDockerfile, nil, labels, func(dir string) error {
		return goBuild(ctx, job.root, "./"+job.entry.Source, dir, job.opts.log())
	})
}

// buildFromTemp builds ref from a context made in a temporary directory:
// fill puts the files there, then dockerfile is written beside them.
func (r *Runtime) buildFromTemp(ctx context.Context, job buildJob, ref, dockerfile string, args, labels map[string]string, fill func(dir string) error) (bench.ImageInfo, error) {
	dir, err := os.MkdirTemp("", "threadbench-build-")
	if err != nil {
		return bench.ImageInfo{}, fmt.Errorf("build %s: %w", job.entry.Name, err)
	}
	defer os.RemoveAll(dir)
	if err := fill(dir); err != nil {
		return bench.ImageInfo{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return bench.ImageInfo{}, fmt.Errorf("build %s: %w", job.entry.Name, err)
	}
	if err := r.buildImage(ctx, ref, dir, args, labels, job.opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, ref, false)
}

// launch gives the Go runtime a soft memory limit with the share of the
// container's memory the JVM's heap gets (java.heapPercent), so that both
// runtimes collect garbage against the same budget.
func (GoBinary) launch(_ Entry, req bench.StartRequest) (map[string]string, map[string]string, error) {
	env, settings := map[string]string{}, map[string]string{}
	if req.Workers > 0 {
		env["WORKERS"] = strconv.Itoa(req.Workers)
		settings["workers"] = env["WORKERS"]
	}
	if limit := goMemLimit(req); limit > 0 {
		env["GOMEMLIMIT"] = strconv.FormatInt(limit, 10)
		settings["gomemlimit"] = env["GOMEMLIMIT"]
	}
	return env, settings, nil
}

// goMemLimit is java.heapPercent of the memory limit, in bytes, or 0
// without a limit.
func goMemLimit(req bench.StartRequest) int64 {
	heap := req.Java.HeapPercent
	if heap <= 0 {
		heap = bench.DefaultHeapPercent
	}
	if req.Limits.MemoryMiB <= 0 {
		return 0
	}
	return int64(float64(req.Limits.MemoryMiB<<20) * heap / 100)
}

// hostGoVersion returns the version of the go command that builds Go
// targets, e.g. "go1.26.8"; the binary carries that runtime.
func hostGoVersion(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", bench.Errorf(bench.EUNAVAILABLE, "the go command is needed to build Go targets: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goBuild compiles pkg into dir/server, static, for the engine's Linux.
func goBuild(ctx context.Context, root, pkg, dir string, log io.Writer) error {
	fmt.Fprintf(log, "go build %s\n", pkg)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(dir, "server"), pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}
