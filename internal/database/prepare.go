package database

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/targets"
)

// prepareTimeout bounds the preparation of an image's template: a server
// making its system tables takes about a second of CPU.
const prepareTimeout = 5 * time.Minute

// prepare runs the image's prepareScript once, in a container of the
// imported root file system rootfsRef, and commits what it made (the
// server's data directory in templateDir) as ref: the start script then
// copies the template rather than making the system tables anew, which
// costs a second of CPU at every start and, on a machine whose CPUs other
// work took, a start past the readiness bound (a CI run: three PostgreSQL
// servers still in initdb after a minute). The container is removed
// whatever happens; a failed preparation quotes the script's output.
func prepare(ctx context.Context, cli imageClient, rootfsRef, ref string, changes []string, history string, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, prepareTimeout)
	defer cancel()
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image:      rootfsRef,
			Entrypoint: []string{prepareScript},
			Labels: map[string]string{
				targets.LabelManaged: "true",
				targets.LabelTarget:  "database-prepare",
				targets.LabelHistory: history,
			},
		},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	})
	if err != nil {
		return fmt.Errorf("prepare: create container: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
		defer cancel()
		if _, err := cli.ContainerRemove(rctx, created.ID, client.ContainerRemoveOptions{Force: true}); err != nil && !cerrdefs.IsNotFound(err) {
			fmt.Fprintf(log, "database: remove the preparing container %.12s: %v\n", created.ID, err)
		}
	}()
	start := time.Now()
	wait := cli.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("prepare: start container: %w", err)
	}
	var code int64
	select {
	case res := <-wait.Result:
		if res.Error != nil {
			return fmt.Errorf("prepare: wait for container: %s", res.Error.Message)
		}
		code = res.StatusCode
	case err := <-wait.Error:
		if ctx.Err() != nil {
			return fmt.Errorf("prepare: %s did not end within %s: %w", prepareScript, prepareTimeout, ctx.Err())
		}
		return fmt.Errorf("prepare: wait for container: %w", err)
	}
	if code != 0 {
		out, err := containerLogs(ctx, cli, created.ID, errorLogLines)
		if err != nil {
			out = fmt.Sprintf("(its output could not be read: %v)", err)
		}
		return fmt.Errorf("prepare: %s exited with code %d; its output ends:\n%s", prepareScript, code, strings.TrimRight(out, "\n"))
	}
	fmt.Fprintf(log, "database: made the server's system tables in %s\n", time.Since(start).Round(100*time.Millisecond))
	if _, err := cli.ContainerCommit(ctx, created.ID, client.ContainerCommitOptions{
		Reference: ref, Changes: changes, Comment: "system tables made by " + prepareScript}); err != nil {
		return fmt.Errorf("prepare: commit %s: %w", ref, err)
	}
	return nil
}

// rootfsRef is a tag of an image's root file system before prepare: ref
// itself is tagged only once the template is in, so that an assembly cut
// short leaves no image that looks whole. Its random suffix keeps two
// processes assembling the same image at once (the CLI's runs of a test
// suite, on a fresh engine) from untagging each other's.
func rootfsRef(ref string) string { return fmt.Sprintf("%s-rootfs-%06x", ref, rand.IntN(1<<24)) }

// untag removes the tag of the root file system; its layer stays, under
// the prepared image.
func untag(ctx context.Context, cli imageClient, ref string, log io.Writer) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if _, err := cli.ImageRemove(ctx, ref, client.ImageRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
		fmt.Fprintf(log, "database: untag %s: %v\n", ref, err)
	}
}
