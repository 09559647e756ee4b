package jfr

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// Docker is the part of the Docker API an ImageTool uses; the engine
// client satisfies it.
type Docker interface {
	ContainerCreate(ctx context.Context, options client.ContainerCreateOptions) (client.ContainerCreateResult, error)
	CopyToContainer(ctx context.Context, containerID string, options client.CopyToContainerOptions) (client.CopyToContainerResult, error)
	ContainerAttach(ctx context.Context, containerID string, options client.ContainerAttachOptions) (client.ContainerAttachResult, error)
	ContainerStart(ctx context.Context, containerID string, options client.ContainerStartOptions) (client.ContainerStartResult, error)
	ContainerWait(ctx context.Context, containerID string, options client.ContainerWaitOptions) client.ContainerWaitResult
	ContainerRemove(ctx context.Context, containerID string, options client.ContainerRemoveOptions) (client.ContainerRemoveResult, error)
}

var _ Docker = (*client.Client)(nil)

// imageRecording is where an ImageTool puts the recording in its container.
const imageRecording = "/tmp/recording.jfr"

// ImageTool runs `jfr` in a container of image, one container a command
// (no network, removed after), with the recording copied in: for a host
// without a JDK. The image needs jfr on its PATH, as the project's JRE
// images (internal/targets/jrebase: jdk.jfr is among their modules) and
// JDK images have. Labels mark the containers, so that a sweep of the
// caller's finds any a crash left.
func ImageTool(cli Docker, image string, labels map[string]string) Tool {
	run := func(ctx context.Context, stdout io.Writer, file string, args ...string) error {
		return runInImage(ctx, cli, image, labels, stdout, file, args)
	}
	return Tool{run: run, name: "jfr in " + image}
}

// runInImage runs `jfr args... <the recording>` in a new container of the
// image and removes it, whatever happened.
func runInImage(ctx context.Context, cli Docker, image string, labels map[string]string, stdout io.Writer, file string, args []string) error {
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image: image, Entrypoint: []string{"jfr"}, Cmd: append(args, imageRecording), Labels: labels,
			// the image's own JVM options would apply to the tool too
			Env:          []string{"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "_JAVA_OPTIONS="},
			AttachStdout: true, AttachStderr: true,
		},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	})
	if err != nil {
		return fmt.Errorf("create a container of %s: %w", image, err)
	}
	defer cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, client.ContainerRemoveOptions{Force: true})
	if err := copyIn(ctx, cli, created.ID, file); err != nil {
		return err
	}
	return attachAndRun(ctx, cli, created.ID, stdout)
}

// copyIn copies the recording at file into the container at
// imageRecording, streaming it as a one-file tar archive.
func copyIn(ctx context.Context, cli Docker, id, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		err := tw.WriteHeader(&tar.Header{Name: imageRecording[strings.LastIndexByte(imageRecording, '/')+1:], Mode: 0o644, Size: fi.Size(), ModTime: fi.ModTime()})
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		if err == nil {
			err = tw.Close()
		}
		pw.CloseWithError(err)
	}()
	_, err = cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/tmp", Content: pr})
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("copy the recording into the container: %w", err)
	}
	return nil
}

// attachAndRun starts the container attached to its output, copies its
// standard output to stdout as it comes, and returns an error quoting its
// standard error when it exits other than with 0.
func attachAndRun(ctx context.Context, cli Docker, id string, stdout io.Writer) error {
	attached, err := cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Errorf("attach to the container: %w", err)
	}
	defer attached.Close()
	if _, err := cli.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("start jfr in the container: %w", err)
	}
	var stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(stdout, &stderr, attached.Reader); err != nil {
		return fmt.Errorf("read jfr's output: %w", err)
	}
	wait := cli.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case res := <-wait.Result:
		if res.StatusCode != 0 {
			return fmt.Errorf("jfr exited with %d: %s", res.StatusCode, strings.TrimSpace(stderr.String()))
		}
		return nil
	case err := <-wait.Error:
		return fmt.Errorf("wait for jfr: %w", err)
	}
}
