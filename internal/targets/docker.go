package targets

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/go-archive"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/moby/moby/client/pkg/jsonmessage"
	"github.com/moby/patternmatcher/ignorefile"
)

// The Docker engine API calls the runtime makes, on the engine it drives.
// testcontainers-go is not used here: it reads its engine from process-wide
// settings (DOCKER_HOST, ~/.testcontainers.properties) once, and caches the
// engine's info for the whole process, so it cannot drive two engines at
// once; the moby client it wraps can.

// containerFile is a file copied into a container before it starts (the
// thread sampler's jar): through the engine's API, so that it reaches a
// remote engine's containers as a local one's.
type containerFile struct {
	Dir, Name string
	Data      []byte
}

// createAndStart creates a container, copies files into it and starts it,
// returning its ID; on a failed start the ID is returned too, for the
// caller to remove it.
func (r *Runtime) createAndStart(ctx context.Context, name string, cfg *container.Config, hc *container.HostConfig, files ...containerFile) (string, error) {
	created, err := r.docker.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name, Config: cfg, HostConfig: hc})
	if err != nil {
		return "", fmt.Errorf("create container: %w", err)
	}
	for _, f := range files {
		if err := r.copyInto(ctx, created.ID, f); err != nil {
			return created.ID, err
		}
	}
	if _, err := r.docker.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return created.ID, fmt.Errorf("start container %.12s: %w", created.ID, err)
	}
	return created.ID, nil
}

// copyInto copies f into a created container, its directory made.
func (r *Runtime) copyInto(ctx context.Context, id string, f containerFile) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := strings.Trim(f.Dir, "/")
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755})
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + f.Name, Mode: 0o644, Size: int64(len(f.Data))})
	tw.Write(f.Data)
	if err := tw.Close(); err != nil {
		return err
	}
	if _, err := r.docker.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: &buf}); err != nil {
		return fmt.Errorf("copy %s/%s into container %.12s: %w", f.Dir, f.Name, id, err)
	}
	return nil
}

// containerState inspects a container.
func (r *Runtime) containerState(ctx context.Context, id string) (*container.State, error) {
	res, err := r.docker.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return nil, err
	}
	if res.Container.State == nil {
		return nil, fmt.Errorf("container %.12s: the engine reports no state", id)
	}
	return res.Container.State, nil
}

// stopAndRemove stops a container, giving it grace to finish, and removes it.
func (r *Runtime) stopAndRemove(ctx context.Context, id string, grace int) error {
	if _, err := r.docker.ContainerStop(ctx, id, client.ContainerStopOptions{Timeout: &grace}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("stop container %.12s: %w", id, err)
	}
	_, err := r.docker.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %.12s: %w", id, err)
	}
	return nil
}

// buildImage builds the Dockerfile in contextDir (honouring its
// .dockerignore) on the runtime's engine and tags it ref.
func (r *Runtime) buildImage(ctx context.Context, ref, contextDir string, args map[string]string, labels map[string]string, log io.Writer) error {
	fmt.Fprintf(log, "docker build -t %s %s (engine %s)\n", ref, contextDir, r.engine.Name)
	buildContext, err := contextArchive(contextDir)
	if err != nil {
		return fmt.Errorf("build image %s: %w", ref, err)
	}
	defer buildContext.Close()
	buildArgs := make(map[string]*string, len(args))
	for k, v := range args {
		buildArgs[k] = &v
	}
	res, err := r.docker.ImageBuild(ctx, buildContext, client.ImageBuildOptions{
		Tags: []string{ref}, Dockerfile: "Dockerfile", BuildArgs: buildArgs, Labels: labels, Remove: true, ForceRemove: true,
	})
	if err != nil {
		return fmt.Errorf("build image %s: %w", ref, err)
	}
	defer res.Body.Close()
	// The stream carries the build's errors: it must be read to the end.
	if err := jsonmessage.DisplayStream(res.Body, log); err != nil {
		return fmt.Errorf("build image %s: %w", ref, err)
	}
	return nil
}

// contextArchive is the build context: dir as a tar stream without what
// its .dockerignore excludes, the Dockerfile and .dockerignore always in.
func contextArchive(dir string) (io.ReadCloser, error) {
	var excludes []string
	f, err := os.Open(filepath.Join(dir, ".dockerignore"))
	switch {
	case err == nil:
		excludes, err = ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s/.dockerignore: %w", dir, err)
		}
	case !os.IsNotExist(err):
		return nil, err
	}
	excludes = append(excludes, "!Dockerfile", "!.dockerignore")
	return archive.TarWithOptions(dir, &archive.TarOptions{ExcludePatterns: excludes})
}

// loadImage copies ref from another engine into this one (docker save |
// docker load): an image of the same inputs hash is the same image, and
// moving it is quicker than building it again.
func (r *Runtime) loadImage(ctx context.Context, from *Runtime, ref string, log io.Writer) error {
	fmt.Fprintf(log, "docker save %s | docker load (engine %s to engine %s)\n", ref, from.engine.Name, r.engine.Name)
	saved, err := from.docker.ImageSave(ctx, []string{ref})
	if err != nil {
		return fmt.Errorf("save image %s on engine %s: %w", ref, from.engine.Name, err)
	}
	defer saved.Close()
	loaded, err := r.docker.ImageLoad(ctx, saved, client.ImageLoadWithQuiet(true))
	if err != nil {
		return fmt.Errorf("load image %s into engine %s: %w", ref, r.engine.Name, err)
	}
	defer loaded.Close()
	if err := jsonmessage.DisplayStream(loaded, log); err != nil {
		return fmt.Errorf("load image %s into engine %s: %w", ref, r.engine.Name, err)
	}
	return nil
}
