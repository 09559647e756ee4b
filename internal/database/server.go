package database

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
)

// The keys of a server's Settings.
const (
	SettingKind           = "database.kind"
	SettingVersion        = "database.version" // what the server says: SELECT version()
	SettingImage          = "database.image"
	SettingImageID        = "database.imageId"
	SettingSource         = "database.source" // the image's ImageLabelSource
	SettingMaxConnections = "database.maxConnections"
	SettingAddress        = "database.address"
	SettingPort           = "database.port"
	SettingCPUs           = "database.cpus"
	SettingMemoryMiB      = "database.memoryMiB"
	SettingCPUSet         = "database.cpuset"
)

// Server is a started database server that answers queries. It implements
// bench.DatabaseServer; its methods are safe for concurrent use once
// StartDatabase has returned it.
type Server struct {
	docker   client.APIClient
	flavor   flavor
	image    serverImage
	conn     bench.DatabaseConn
	req      bench.DatabaseRequest
	interval time.Duration // between a recording's samples
	instance string        // the container's io.threadbench.instance label
	id       string        // the container's
	started  time.Time     // when its container was started, by this clock
	startup  time.Duration
	settings map[string]string

	mu      sync.Mutex
	stopped bool
}

var _ bench.DatabaseServer = (*Server)(nil)

// newServer is the server of flavor f about to be started from img on the
// local engine's port.
func newServer(docker client.APIClient, f flavor, img serverImage, port int, req bench.DatabaseRequest, interval time.Duration) *Server {
	return &Server{docker: docker, flavor: f, image: img, req: req, interval: interval, instance: newInstanceID(),
		conn: bench.DatabaseConn{Kind: f.kind, Host: localAddress, Port: port,
			Name: bench.DatabaseName, User: bench.DatabaseUser, Password: bench.DatabasePassword}}
}

// Conn returns where the server answers.
func (s *Server) Conn() bench.DatabaseConn { return s.conn }

// Image returns the image the server runs.
func (s *Server) Image() bench.ImageInfo { return s.image.info }

// ContainerID returns the Docker container's ID.
func (s *Server) ContainerID() string { return s.id }

// Startup returns how long the server took from its container's start to
// its first answer.
func (s *Server) Startup() time.Duration { return s.startup }

// Settings returns how the server runs (SettingKind...), as plain strings.
func (s *Server) Settings() map[string]string { return maps.Clone(s.settings) }

// State asks the engine about the container.
func (s *Server) State(ctx context.Context) (bench.ContainerState, error) {
	st, err := s.inspect(ctx)
	if err != nil {
		return bench.ContainerState{}, err
	}
	return bench.ContainerState{Running: st.Running, OOMKilled: st.OOMKilled, ExitCode: st.ExitCode}, nil
}

// Logs returns the last tail lines of the server's output; tail <= 0
// returns all of it.
func (s *Server) Logs(ctx context.Context, tail int) (string, error) { return s.logs(ctx, tail) }

// Record starts reading the server's figures by SQL every interval, on a
// connection of the recording's own, until ctx ends or the recording is
// stopped.
func (s *Server) Record(ctx context.Context) bench.DatabaseRecording {
	monitor := s.conn
	monitor.Name = s.flavor.monitorDB
	return startRecording(ctx, s.flavor, monitor.DSN(), s.interval)
}

// Stop removes the container, at once: the server's data is the run's
// only. Stopping a stopped server does nothing.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	if err := s.removeContainer(ctx, s.id); err != nil {
		// Whatever failed, the container must not outlive its run.
		if rmErr := s.remove(ctx); rmErr != nil {
			return fmt.Errorf("stop database %s: %w (and removing it by label: %v)", s.flavor.kind, err, rmErr)
		}
	}
	s.stopped = true
	return nil
}

// describe fills the server's settings in, from what it answered.
func (s *Server) describe(version, maxConnections string) {
	s.settings = map[string]string{
		SettingKind:           s.flavor.kind,
		SettingVersion:        version,
		SettingImage:          s.image.info.Ref,
		SettingImageID:        s.image.info.ID,
		SettingSource:         s.image.source,
		SettingMaxConnections: maxConnections,
		SettingAddress:        s.conn.Host,
		SettingPort:           strconv.Itoa(s.conn.Port),
		SettingCPUs:           strconv.FormatFloat(s.req.Limits.CPUs, 'f', -1, 64),
		SettingMemoryMiB:      strconv.FormatInt(s.req.Limits.MemoryMiB, 10),
		SettingCPUSet:         s.req.CPUSet,
	}
}
