package database

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// Container calls: how long each may take, and how much of the log an
// error quotes.
const (
	createTimeout = 60 * time.Second
	removeTimeout = 30 * time.Second
	errorLogLines = 30
)

// containerConfig describes the server's container: its image, its
// arguments and the labels the targets' containers have, so that the
// daemon's Cleanup (by history) and CleanupRun (by run) remove it too.
func (r *Runtime) containerConfig(s *Server, args []string, req bench.DatabaseRequest) *container.Config {
	return &container.Config{
		Image: s.image.info.Ref,
		Cmd:   args,
		Labels: map[string]string{
			targets.LabelManaged:  "true",
			targets.LabelTarget:   s.flavor.label(),
			targets.LabelRun:      req.RunID,
			targets.LabelHistory:  r.opts.History,
			targets.LabelInstance: s.instance,
		},
	}
}

// hostConfig gives the container host networking, the request's limits
// and its data directory on a tmpfs owned by the server's user.
func hostConfig(req bench.DatabaseRequest) *container.HostConfig {
	hc := &container.HostConfig{
		NetworkMode: "host",
		Tmpfs:       map[string]string{dataDir: "rw,uid=999,gid=999,mode=0700"},
	}
	hc.NanoCPUs = int64(req.Limits.CPUs * 1e9)
	hc.CpusetCpus = req.CPUSet
	if req.Limits.MemoryMiB > 0 {
		// Swap equal to memory means no swap: a server that needs more is
		// killed, not slowed down unmeasurably.
		hc.Memory = req.Limits.MemoryMiB << 20
		hc.MemorySwap = hc.Memory
	}
	return hc
}

// containerName names the container for people reading docker ps; the
// random suffix keeps it from clashing with one a crash left behind.
func containerName(f flavor, port int) string {
	return fmt.Sprintf("threadbench-%s-%d-%06x", f.label(), port, rand.IntN(1<<24))
}

// newInstanceID names one start of a container.
func newInstanceID() string { return fmt.Sprintf("%016x", rand.Uint64()) }

// freeLocalPort returns a port free on addr here, as the targets' runtime
// picks one: below Linux's ephemeral range (32768 on), where outgoing
// connections take theirs, since the server binds it seconds later.
func freeLocalPort(addr string) (int, error) {
	for range portTries {
		port := portMin + rand.IntN(portMax-portMin+1)
		ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
		if err != nil {
			continue
		}
		ln.Close()
		return port, nil
	}
	return 0, bench.Errorf(bench.ECONFLICT, "no free port on %s in %d tries", addr, portTries)
}

// The ports a server is given: as the targets' (internal/targets).
const (
	portMin   = 20000
	portMax   = 32767
	portTries = 20
)

// start creates and starts the server's container. The calls are not
// cancelled half-way: a cancelled create does not stop the engine from
// creating the container a moment later, out of reach. They run to the
// end (bounded), and a cancel is honoured after; the caller removes what
// they made, by its instance label.
func (s *Server) start(ctx context.Context, cfg *container.Config, hc *container.HostConfig) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	defer cancel()
	created, err := s.docker.ContainerCreate(cctx, client.ContainerCreateOptions{
		Name: containerName(s.flavor, s.conn.Port), Config: cfg, HostConfig: hc})
	if err != nil {
		return fmt.Errorf("start database %s: create container: %w", s.flavor.kind, err)
	}
	s.id = created.ID
	if _, err := s.docker.ContainerStart(cctx, s.id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("start database %s: start container %.12s: %w", s.flavor.kind, s.id, err)
	}
	s.started = time.Now()
	return ctx.Err()
}

// remove removes a container that failed to start, even when ctx is done:
// by its instance label, so that a container whose create call failed
// after the engine made it is removed too.
func (s *Server) remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	list, err := s.docker.ContainerList(ctx, client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", targets.LabelInstance+"="+s.instance)})
	if err != nil {
		return fmt.Errorf("list the containers of database %s: %w", s.flavor.kind, err)
	}
	for _, c := range list.Items {
		if err := s.removeContainer(ctx, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// removeContainer removes a container, running or not; one already gone
// is no error.
func (s *Server) removeContainer(ctx context.Context, id string) error {
	_, err := s.docker.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove container %.12s of database %s: %w", id, s.flavor.kind, err)
	}
	return nil
}

// inspect returns the container's state.
func (s *Server) inspect(ctx context.Context) (*container.State, error) {
	res, err := s.docker.ContainerInspect(ctx, s.id, client.ContainerInspectOptions{})
	if err != nil {
		return nil, fmt.Errorf("inspect container of database %s: %w", s.flavor.kind, err)
	}
	if res.Container.State == nil {
		return nil, fmt.Errorf("container %.12s of database %s: the engine reports no state", s.id, s.flavor.kind)
	}
	return res.Container.State, nil
}

// logs returns the last tail lines of the container's output (stdout and
// stderr together); tail <= 0 returns all of it.
func (s *Server) logs(ctx context.Context, tail int) (string, error) {
	out, err := containerLogs(ctx, s.docker, s.id, tail)
	if err != nil {
		return out, fmt.Errorf("logs of database %s: %w", s.flavor.kind, err)
	}
	return out, nil
}

// containerLogs returns the last tail lines of a container's output
// (stdout and stderr together); tail <= 0 returns all of it.
func containerLogs(ctx context.Context, docker client.ContainerAPIClient, id string, tail int) (string, error) {
	opts := client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: "all"}
	if tail > 0 {
		opts.Tail = strconv.Itoa(tail)
	}
	rc, err := docker.ContainerLogs(ctx, id, opts)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, &buf, rc); err != nil {
		return buf.String(), err
	}
	return buf.String(), nil
}
