package runner_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/targets/go/server"
)

// fakeRuntime "starts" targets as in-process Go target servers, so the
// runner, the real load engine and the real store are tested without Docker.
type fakeRuntime struct {
	mu       sync.Mutex
	startErr map[string]error                // per target: Start fails with this
	checkErr map[string]error                // per target: the contract check fails with this
	state    map[string]bench.ContainerState // per target: State after the attack
	stateErr map[string]error                // per target: State fails with this
	started  []string
	requests []bench.StartRequest
	stopped  []string
	cleanups int
	// cleanupErrs fail the first Cleanups, one each.
	cleanupErrs []error
	info        map[string]string // what the targets say about themselves; nil: GET /info fails
	targets     []*fakeTarget     // every target started, in order
}

// killLatest makes the target started last die, as a container that
// exited with code 3.
func (f *fakeRuntime) killLatest() {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.targets[len(f.targets)-1]
	t.state = bench.ContainerState{ExitCode: 3}
}

var _ bench.TargetRuntime = (*fakeRuntime)(nil)

func (f *fakeRuntime) Build(_ context.Context, target string, _ bench.RunSpec, _ io.Writer) (bench.ImageInfo, error) {
	return bench.ImageInfo{Ref: "fake/" + target + ":1", Runtime: "fake"}, nil
}

func (f *fakeRuntime) Start(_ context.Context, target string, _ bench.ImageInfo, req bench.StartRequest) (bench.Target, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.startErr[target]; err != nil {
		return nil, err
	}
	f.started, f.requests = append(f.started, target), append(f.requests, req)
	st, ok := f.state[target]
	if !ok {
		st = bench.ContainerState{Running: true}
	}
	t := &fakeTarget{rt: f, name: target, srv: httptest.NewServer(server.NewHandler(target)), state: st,
		stateErr: f.stateErr[target], checkErr: f.checkErr[target]}
	f.targets = append(f.targets, t)
	return t, nil
}

func (f *fakeRuntime) Cleanup(ctx context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups++
	if len(f.cleanupErrs) > 0 {
		err := f.cleanupErrs[0]
		f.cleanupErrs = f.cleanupErrs[1:]
		return 0, err
	}
	return 0, ctx.Err()
}

// Engine describes the local engine as this host's and any other as a
// remote one of 8 CPUs on host "lab-host", reached at 198.18.0.2.
func (f *fakeRuntime) Engine(_ context.Context, name string) (bench.EngineInfo, error) {
	if name == bench.EngineLocal {
		return bench.EngineInfo{Name: name, Address: "127.0.0.1", Machine: bench.Machine{DockerVersion: "fake", CgroupVersion: "2"}}, nil
	}
	return bench.EngineInfo{Name: name, Remote: true, Address: "198.18.0.2", Machine: bench.Machine{Host: "lab-host", CPUs: 8, DockerVersion: "fake-remote", CgroupVersion: "2"}}, nil
}

func (f *fakeRuntime) stoppedTargets() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.stopped...)
}

type fakeTarget struct {
	rt       *fakeRuntime
	name     string
	srv      *httptest.Server
	state    bench.ContainerState
	stateErr error
	checkErr error
}

var _ bench.Target = (*fakeTarget)(nil)

func (t *fakeTarget) BaseURL() string                           { return t.srv.URL }
func (t *fakeTarget) MetricsURL() string                        { return t.srv.URL + "/metrics" }
func (t *fakeTarget) ContainerID() string                       { return "fake-" + t.name }
func (t *fakeTarget) Startup() time.Duration                    { return 42 * time.Millisecond }
func (t *fakeTarget) Settings() map[string]string               { return map[string]string{"cpus": "1"} }
func (t *fakeTarget) Logs(context.Context, int) (string, error) { return "fatal: out of memory", nil }
func (t *fakeTarget) Entry() bench.TargetInfo                   { return bench.TargetInfo{Name: t.name, Kind: "go"} }
func (t *fakeTarget) Check(context.Context) error               { return t.checkErr }
func (t *fakeTarget) State(context.Context) (bench.ContainerState, error) {
	t.rt.mu.Lock()
	defer t.rt.mu.Unlock()
	return t.state, t.stateErr
}

// Info answers what the runtime says, or fails as a target without /info would.
func (t *fakeTarget) Info(context.Context) (map[string]string, error) {
	if t.rt.info == nil {
		return map[string]string{"runtime": "fake"}, nil
	}
	if _, ok := t.rt.info["fail"]; ok {
		return nil, errors.New("GET /info: 404 Not Found")
	}
	return t.rt.info, nil
}
func (t *fakeTarget) Stop(context.Context) error {
	t.srv.Close()
	t.rt.mu.Lock()
	t.rt.stopped = append(t.rt.stopped, t.name)
	t.rt.mu.Unlock()
	return nil
}

var errNoImage = errors.New("no such image")

// newStore opens a real SQLite store in a temporary directory.
func newStore(t *testing.T) *store.DB {
	t.Helper()
	db := store.NewDB(t.TempDir() + "/history.db")
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
