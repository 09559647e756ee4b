package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/threadbench/threadbench/internal/bench"
)

// Image repositories of the built targets; the tag is the first 12 hex
// digits of the inputs hash, so a changed source gets a new image.
const (
	GoImageRepo   = "threadbench/go"
	JavaImageRepo = "threadbench/java"
)

// goDockerfile packages the static Go binary and nothing else.
const goDockerfile = `FROM scratch
COPY server /server
ENTRYPOINT ["/server"]
`

// BuildOptions tune Build.
type BuildOptions struct {
	// JavaBaseImage is the JRE image the Java target runs on; empty means
	// DefaultJavaBaseImage, or a locally assembled JRE when that cannot be had.
	JavaBaseImage string
	// Log receives build progress (compiler, Maven, image build); nil discards it.
	Log io.Writer
}

func (o BuildOptions) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Build makes the image of the named target unless an image built from the
// same inputs exists already (then Cached is true). Both Java targets share
// one image; only their environment differs.
func (r *Runtime) Build(ctx context.Context, name string, opts BuildOptions) (bench.ImageInfo, error) {
	entry, err := Lookup(name)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	root, err := r.root()
	if err != nil {
		return bench.ImageInfo{}, err
	}
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	if entry.Kind == KindJava {
		return r.buildJava(ctx, root, opts)
	}
	return r.buildGo(ctx, root, opts)
}

// root returns the repository root, found once.
func (r *Runtime) root() (string, error) {
	if r.repoRoot != "" {
		return r.repoRoot, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	return FindRepoRoot(wd, os.Getenv(RepoEnv))
}

// buildGo compiles targets/go on the host into a static binary and puts it
// in a scratch image.
func (r *Runtime) buildGo(ctx context.Context, root string, opts BuildOptions) (bench.ImageInfo, error) {
	goVersion, err := hostGoVersion(ctx, root)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	hash, err := InputsHash(root, []string{"targets/go", "go.mod", "go.sum"},
		"GOVERSION="+goVersion, "GOARCH="+runtime.GOARCH, goDockerfile)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := GoImageRepo + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref); ok || err != nil {
		return info, err
	}
	dir, err := os.MkdirTemp("", "threadbench-go-build-")
	if err != nil {
		return bench.ImageInfo{}, fmt.Errorf("build go: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := goBuild(ctx, root, dir, opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	if err := os.WriteFile(dir+"/Dockerfile", []byte(goDockerfile), 0o644); err != nil {
		return bench.ImageInfo{}, fmt.Errorf("build go: %w", err)
	}
	labels := map[string]string{labelInputs: hash, labelRuntime: goVersion, labelBase: "scratch"}
	if err := r.buildImage(ctx, ref, dir, nil, labels, opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, ref, false)
}

// hostGoVersion returns the version of the go command that builds the Go
// target, e.g. "go1.26.8"; the binary carries that runtime.
func hostGoVersion(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", bench.Errorf(bench.EUNAVAILABLE, "the go command is needed to build the go target: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goBuild compiles ./targets/go into dir/server, static, for the engine's Linux.
func goBuild(ctx context.Context, root, dir string, log io.Writer) error {
	fmt.Fprintf(log, "go build ./targets/go\n")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s", "-o", dir+"/server", "./targets/go")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./targets/go: %w", err)
	}
	return nil
}

// cachedImage returns the image's info with Cached set when ref exists locally.
func (r *Runtime) cachedImage(ctx context.Context, ref string) (bench.ImageInfo, bool, error) {
	info, err := r.imageInfo(ctx, ref, true)
	if cerrdefs.IsNotFound(err) {
		return bench.ImageInfo{}, false, nil
	}
	return info, err == nil, err
}

// imageInfo describes a local image from its inspect data and the labels
// Build put on it.
func (r *Runtime) imageInfo(ctx context.Context, ref string, cached bool) (bench.ImageInfo, error) {
	img, err := r.docker.ImageInspect(ctx, ref)
	if err != nil {
		return bench.ImageInfo{}, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	info := bench.ImageInfo{Ref: ref, ID: img.ID, Cached: cached}
	if img.Config != nil {
		info.Runtime = img.Config.Labels[labelRuntime]
		info.BaseImage = img.Config.Labels[labelBase]
	}
	return info, nil
}

// imageExists reports whether ref is in the engine's local image store.
func (r *Runtime) imageExists(ctx context.Context, ref string) (bool, error) {
	_, err := r.docker.ImageInspect(ctx, ref)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// buildImage builds the Dockerfile in contextDir (honouring its
// .dockerignore) with testcontainers' Dockerfile build and tags it ref.
func (r *Runtime) buildImage(ctx context.Context, ref, contextDir string, args map[string]string, labels map[string]string, log io.Writer) error {
	repo, tag, _ := strings.Cut(ref, ":")
	buildArgs := make(map[string]*string, len(args))
	for k, v := range args {
		buildArgs[k] = &v
	}
	fmt.Fprintf(log, "docker build -t %s %s\n", ref, contextDir)
	req := &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context:        contextDir,
		Dockerfile:     "Dockerfile",
		Repo:           repo,
		Tag:            tag,
		BuildArgs:      buildArgs,
		BuildLogWriter: log,
		KeepImage:      true, // ours to cache, not testcontainers' to delete
		BuildOptionsModifier: func(o *client.ImageBuildOptions) {
			o.Labels = labels
		},
	}}
	if _, err := r.provider.BuildImage(ctx, req); err != nil {
		return fmt.Errorf("build image %s: %w", ref, err)
	}
	return nil
}
