//go:build integration

package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// API work during an attack shares the load generator's CPUs: a run during
// which 100 clients hammer the daemon is marked disturbed, with the figure;
// the same run left alone is not.
func TestRunMarkedDisturbedByAPILoad(t *testing.T) {
	sideBySide(t)
	d := startInProcessDaemon(t, t.TempDir()+"/history.db")
	a := apiClient{t: t, base: d.url}
	spec := openSpec("quiet", "4s", 50, true)

	quiet := a.waitSucceeded(a.submit(spec).ID)
	if f := flagsOf(quiet, bench.FlagDisturbed); f != "" {
		t.Errorf("a run left alone is flagged: %s", f)
	}

	spec["name"] = "hammered"
	run := a.submit(spec)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var sent int64
	var mu sync.Mutex
	for range 100 {
		wg.Go(func() {
			n := int64(0)
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.url+"/runs?limit=5", nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
					n++
				}
			}
			mu.Lock()
			sent += n
			mu.Unlock()
		})
	}
	hammered := a.waitSucceeded(run.ID)
	stop()
	wg.Wait()
	t.Logf("100 clients sent %d API requests", sent)
	f := flagsOf(hammered, bench.FlagDisturbed)
	if f == "" || !strings.Contains(f, "API served") {
		t.Fatalf("stage flags %+v, want disturbed by the API's requests", hammered.Targets[0].Stages[0].Flags)
	}
	t.Logf("flag: %s", f)
	if g := hammered.Targets[0].Stages[0].Generator; g == nil || g.APIRequests < 100 {
		t.Errorf("generator figures %+v, want the API's requests counted", g)
	}
}

// flagsOf returns the reasons of a run's first target's stage flags of a kind.
func flagsOf(run *bench.Run, kind string) string {
	var reasons []string
	for _, s := range run.Targets[0].Stages {
		for _, f := range s.Flags {
			if f.Kind == kind {
				reasons = append(reasons, f.Reason)
			}
		}
	}
	return strings.Join(reasons, "; ")
}
