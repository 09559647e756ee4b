package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/threadbench/threadbench/internal/bench"
)

// BuildOptions tune BuildTarget.
type BuildOptions struct {
	// JavaBaseImage is the JRE image the Java targets run on; empty means
	// the runtime's (RuntimeOptions.JavaBaseImage), else DefaultJavaBaseImage,
	// or a locally assembled JRE when that cannot be had.
	JavaBaseImage string
	// JDK is the Java major a Java target is built on when its reference
	// names none; 0 means its default.
	JDK int
	// Log receives build progress (compiler, Maven, image build); nil discards it.
	Log io.Writer
}

func (o BuildOptions) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Build implements bench.TargetRuntime: the image of the target a spec
// names, with the runtime's base images.
func (r *Runtime) Build(ctx context.Context, target string, spec bench.RunSpec, log io.Writer) (bench.ImageInfo, error) {
	return r.BuildTarget(ctx, target, BuildOptions{JavaBaseImage: spec.Java.BaseImage, JDK: spec.Java.JDK, Log: log})
}

// BuildTarget makes the image of a target ("name" or "name@variant")
// unless an image built from the same inputs exists already (then Cached is
// true). Entries with the same source and recipe share one image; only
// their environment differs.
func (r *Runtime) BuildTarget(ctx context.Context, target string, opts BuildOptions) (bench.ImageInfo, error) {
	entry, err := r.catalog.Lookup(target)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	root, err := r.root()
	if err != nil {
		return bench.ImageInfo{}, err
	}
	if opts.JavaBaseImage == "" {
		opts.JavaBaseImage = r.javaBaseImage
	}
	r.buildMu.Lock()
	defer r.buildMu.Unlock()
	job := buildJob{root: root, entry: entry, variant: entry.variant(bench.ParseTargetRef(target), opts.JDK), opts: opts}
	return entry.Recipe.build(ctx, r, job)
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
