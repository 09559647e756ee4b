//go:build integration

package goprof_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/diagnosis"
	"github.com/threadbench/threadbench/internal/goprof"
	"github.com/threadbench/threadbench/internal/profiletest"
	"github.com/threadbench/threadbench/internal/targets"
)

// workFunction is the Go target's CPU work, behind /api/cpu.
const workFunction = "github.com/threadbench/threadbench/targets/go/server.cpuWork"

// TestProfileFindsWorkFunction runs the built-in Go target in its image,
// sends its CPU-bound endpoint from a few clients, and profiles it through
// net/http/pprof meanwhile: in most samples the target's own code was in
// the endpoint's work function, and the frame the samples were most often
// running in is its hash (under it).
func TestProfileFindsWorkFunction(t *testing.T) {
	ctx := context.Background()
	rt, err := targets.NewRuntime(targets.RuntimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	img, err := rt.BuildTarget(ctx, bench.TargetGo, targets.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := rt.StartTarget(ctx, bench.TargetGo, img, targets.StartOptions{
		RunID:  fmt.Sprintf("test-goprof-%d", time.Now().UnixNano()),
		Limits: bench.Limits{CPUs: 1, MemoryMiB: 256},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(context.Background())

	unlock := profiletest.LockHost(t)
	loaded := make(chan profiletest.Loaded, 1)
	go func() { loaded <- profiletest.Load(t, inst.BaseURL()+"/api/cpu?work=2000", 4, 3*time.Second) }()
	time.Sleep(300 * time.Millisecond) // the load under way
	p, raw, err := goprof.Fetch(ctx, http.DefaultClient, inst.BaseURL(), 2*time.Second)
	n := (<-loaded).OK
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || p.Samples() == 0 {
		t.Fatalf("%d requests served, %d samples: nothing to profile", n, p.Samples())
	}
	top := p.Top(5)
	t.Logf("%d requests; profile of %v, %d bytes, %d samples (%.2f CPU s); top frames %v", n, p.Duration, len(raw), p.Samples(), p.CPUSeconds(), top)

	why := diagnosis.Diagnose(diagnosis.Evidence{Target: bench.TargetGo, Samples: p.Stacks(), Source: bench.ProfilePprof,
		Own: func(f string) bool { return strings.HasPrefix(f, "github.com/threadbench/threadbench/targets/go/") }})
	own := why.OwnFrames
	t.Logf("the target's own innermost frames: %v", own)
	if len(own) == 0 || own[0].Frame != workFunction || 2*own[0].Self < p.Samples() {
		t.Errorf("the target's own code was most often in %v (of %d samples), want %s in most", own, p.Samples(), workFunction)
	}
	if !strings.Contains(top[0].Frame, "sha256") {
		t.Errorf("the top frame by self samples is %s, want SHA-256's block function under %s", top[0].Frame, workFunction)
	}
}
