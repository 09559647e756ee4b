package targets

import (
	"context"
	"fmt"
	"io"
	"os"

	cerrdefs "github.com/containerd/errdefs"

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

// Build builds the image of the target a spec names on the runtime's
// engine, with the runtime's base images. Engines.Build picks the runtime
// by spec.Engine.
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
	v := entry.Variations[job.variant]
	if v.JDK != 0 {
		job.opts.JDK = v.JDK // the variant's JDK, over the run's
	}
	if v.Recipe != nil {
		job.entry.Recipe = v.Recipe // the variant's build, one of several jars
	}
	return job.entry.Recipe.build(ctx, r, job)
}

// root returns the directory the targets are built from: the configured
// repository, the checkout around the working directory, or the binary's
// embedded sources (FindSources).
func (r *Runtime) root() (string, error) {
	if r.repoRoot != "" {
		return r.repoRoot, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	return FindSources(wd, os.Getenv(RepoEnv), r.sources)
}

// cachedImage returns the image's info with Cached set when ref is on the
// runtime's engine, or has been loaded there from its image source: refs
// are tagged by their inputs hash, so an image of the same ref is the same
// image on any engine.
func (r *Runtime) cachedImage(ctx context.Context, ref string, log io.Writer) (bench.ImageInfo, bool, error) {
	ok, err := r.haveImage(ctx, ref, log)
	if !ok || err != nil {
		return bench.ImageInfo{}, false, err
	}
	info, err := r.imageInfo(ctx, ref, true)
	return info, err == nil, err
}

// haveImage reports whether ref is on the runtime's engine, loading it
// from the image source when it is there and not here.
func (r *Runtime) haveImage(ctx context.Context, ref string, log io.Writer) (bool, error) {
	if ok, err := r.imageExists(ctx, ref); ok || err != nil {
		return ok, err
	}
	if r.source == nil {
		return false, nil
	}
	if ok, err := r.source.imageExists(ctx, ref); !ok || err != nil {
		return false, nil // not there either, or not answering: build here
	}
	if err := r.loadImage(ctx, r.source, ref, log); err != nil {
		return false, err
	}
	return true, nil
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
