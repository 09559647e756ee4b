package database

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// DefaultReadyTimeout bounds the wait for a started server to answer a
// query. It bounds a hang, not a start: a server that exits fails at once.
// Either server answers within seconds on a quiet machine.
const DefaultReadyTimeout = 60 * time.Second

// Options configure a Runtime.
type Options struct {
	// History is the identity of the run history the servers' containers
	// belong to (store.DB.HistoryID), set as their io.threadbench.history
	// label, as the targets' runtime sets its own
	// (targets.RuntimeOptions.History, which *targets.Runtime does not
	// tell): give both the same, and the daemon's Cleanup removes the
	// servers a crash left behind.
	History string
	// ReadyTimeout bounds the wait for a server to answer; 0 means
	// DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// SampleInterval is how often a recording reads a server's figures;
	// 0 means DefaultSampleInterval.
	SampleInterval time.Duration
	// ServerArgs are added to a server's command line, by kind, after the
	// runtime's own settings, which they may override: PostgreSQL's
	// "-c", "name=value" pairs, MariaDB's "--name=value" options.
	ServerArgs map[string][]string
	// Log receives the progress of an image's assembly; nil discards it.
	Log io.Writer
}

// Runtime starts database servers on the engines of the targets. It
// implements bench.DatabaseRuntime and is safe for concurrent use.
type Runtime struct {
	engines *targets.Engines
	opts    Options
	ports   func() (int, error) // picks a server's port: freeLocalPort's
}

var _ bench.DatabaseRuntime = (*Runtime)(nil)

// NewRuntime returns a runtime starting servers on engines, the one a
// request names.
func NewRuntime(engines *targets.Engines, opts Options) *Runtime {
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = DefaultReadyTimeout
	}
	if opts.SampleInterval <= 0 {
		opts.SampleInterval = DefaultSampleInterval
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	return &Runtime{engines: engines, opts: opts, ports: func() (int, error) { return freeLocalPort(localAddress) }}
}

// StartDatabase assembles (or finds) the server's image, starts it on the
// engine req names and returns once it answers a query as
// bench.DatabaseUser, its table is seeded and req.Init has run. A server
// that exits or does not answer within the bound is removed and an
// EUNAVAILABLE *bench.Error quotes its log; an init statement that fails
// removes it too, and is an EINVALID error about database.init naming the
// statement's line.
func (r *Runtime) StartDatabase(ctx context.Context, req bench.DatabaseRequest) (bench.DatabaseServer, error) {
	f, err := lookup(req.Kind)
	if err != nil {
		return nil, err
	}
	engine, err := r.engine(req.Engine)
	if err != nil {
		return nil, err
	}
	img, err := ensureImage(ctx, engine.Client(), f, r.opts.History, r.opts.Log)
	if err != nil {
		return nil, err
	}
	s, err := r.launch(ctx, engine, f, img, req)
	if err != nil {
		return nil, err // not a nil *Server in the interface
	}
	return s, nil
}

// engine returns the runtime of the engine a request names, which must be
// the local one.
func (r *Runtime) engine(name string) (*targets.Runtime, error) {
	rt, err := r.engines.Runtime(name)
	if err != nil {
		return nil, err
	}
	if rt.EngineName() != bench.EngineLocal {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "engine %s: a database on a remote engine is not supported yet; run it on the local engine", rt.EngineName())
	}
	return rt, nil
}

// launch starts the server's container from img and readies it; a server
// that does not get ready is removed. A server that found its port taken
// between the pick and its bind (another process took it in the seconds
// its data directory is made: a clean clone's tests saw it) is started
// again on another port, launchTries times in all.
func (r *Runtime) launch(ctx context.Context, engine *targets.Runtime, f flavor, img serverImage, req bench.DatabaseRequest) (*Server, error) {
	var err error
	for try := 1; try <= launchTries; try++ {
		var port int
		if port, err = r.ports(); err != nil {
			return nil, err
		}
		s := newServer(engine.Client(), f, img, port, req, r.opts.SampleInterval)
		args := append(f.args(localAddress, port), r.opts.ServerArgs[f.kind]...)
		if err = s.start(ctx, r.containerConfig(s, args, req), hostConfig(req)); err == nil {
			if err = s.ready(ctx, r.opts.ReadyTimeout, req.Init); err == nil {
				return s, nil
			}
		}
		taken := ctx.Err() == nil && s.portTaken(ctx)
		s.remove(ctx)
		if !taken {
			return nil, err
		}
		fmt.Fprintf(r.opts.Log, "database %s: port %d was taken before the server bound it; starting it on another (try %d of %d)\n",
			f.kind, port, try, launchTries)
	}
	return nil, err
}

// launchTries bounds the starts of a server whose port was taken under it.
const launchTries = 3

// portTaken says whether the server's log says it could not listen because
// its address was in use: PostgreSQL's "could not bind IPv4 address ...:
// Address already in use", MariaDB's "Bind on TCP/IP port. Got error: 98:
// Address already in use".
func (s *Server) portTaken(ctx context.Context) bool {
	logs, err := s.logs(context.WithoutCancel(ctx), errorLogLines)
	return err == nil && strings.Contains(logs, "Address already in use")
}
