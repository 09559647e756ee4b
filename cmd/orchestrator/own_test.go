package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A service of one's own serves no contract endpoint: a spec that asks it
// for one is refused by spec.Prepare, before anything starts, through the
// API (400 naming the field; no run stored, so none reaches the executor
// and no container is made) as on the command line (exit 2, the history
// never opened).
func TestOwnServiceContractRequestRefused(t *testing.T) {
	dir := t.TempDir()
	jar := filepath.Join(dir, "orders-1.0.jar")
	if err := os.WriteFile(jar, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("targets:\n  - name: orders\n    jar: "+jar+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "orders@virtual is a service of your own, which serves no contract endpoint"

	d := startStandInServe(t, time.Millisecond, nil, "--config", cfgPath)
	spec := `{"targets": ["orders@virtual"], "profile": "smoke", "workload": {"requests": [{"uri": "/orders"}, {"endpoint": "heavy"}]}}`
	resp, body := d.request(t, "POST", "/runs", spec, map[string]string{"Content-Type": "application/json"})
	var problem struct{ Field, Detail string }
	_ = json.Unmarshal(body, &problem)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" ||
		problem.Field != "workload.requests[1].endpoint" || !strings.Contains(problem.Detail, want) {
		t.Errorf("POST /runs = %d %s %s, want 400, a problem naming workload.requests[1].endpoint", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if runs := d.listRuns(t); len(runs) != 0 {
		t.Errorf("%d runs stored, want none: the spec reached the queue", len(runs))
	}
	// The same service asked only its own requests is queued and run.
	ok := `{"targets": ["orders@virtual"], "profile": "smoke", "warmup": {"disabled": true}, "workload": {"requests": [{"uri": "/orders"}]}}`
	if resp, body := d.request(t, "POST", "/runs", ok, map[string]string{"Content-Type": "application/json"}); resp.StatusCode != http.StatusAccepted {
		t.Errorf("POST /runs of own requests = %d: %s", resp.StatusCode, body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantRunRefused(t, ctx, []string{"--config", cfgPath, "--targets", "orders@virtual", "--endpoint", "heavy"}, "workload.requests[0].endpoint: "+want)
	code, stdout, stderr := run(t, nil, "run", "--server", d.base, "--targets", "orders@virtual", "--endpoint", "heavy", "-q")
	wantBadInput(t, code, stdout, stderr, "workload.requests[0].endpoint: "+want)
}
