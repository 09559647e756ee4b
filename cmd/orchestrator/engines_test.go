package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// TestServeEngines: a daemon whose configuration has the engine "lab" takes
// runs on it by name, puts runs that name none on its default engine, and
// refuses an engine given by URL or not configured with a 400 naming the
// field, before anything is queued.
func TestServeEngines(t *testing.T) {
	d := startStandInServe(t, time.Millisecond, nil, "--config", "testdata/config/engines.yaml")
	header := map[string]string{"Content-Type": "application/json"}
	spec := func(engine string) string {
		s := `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"light"}]},"warmup":{"disabled":true}`
		if engine != "" {
			s += `,"engine":"` + engine + `"`
		}
		return s + "}"
	}
	for _, tt := range []struct {
		name, engine, detail string
	}{
		{"URL", "tcp://198.18.0.2:2375", `never by an address or URL; got "tcp://198.18.0.2:2375" (configured: local, lab)`},
		{"SSH", "ssh://bench@198.18.0.2", "never by an address or URL"},
		{"Unknown", "staging", `unknown engine "staging" (configured: local, lab)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := d.request(t, "POST", "/runs", spec(tt.engine), header)
			problem := decodeProblem(t, body)
			if resp.StatusCode != http.StatusBadRequest || problem.Field != "engine" || !strings.Contains(problem.Detail, tt.detail) {
				t.Errorf("POST /runs with engine %q = %d %s, want 400 naming the field engine and saying %q", tt.engine, resp.StatusCode, body, tt.detail)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", ct)
			}
		})
	}
	resp, body := d.request(t, "GET", "/runs", "", nil)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"id"`) {
		t.Errorf("GET /runs = %d %s: a refused run was stored", resp.StatusCode, body)
	}
	for engine, want := range map[string]string{"": "lab", "local": "local", "lab": "lab"} {
		resp, body := d.request(t, "POST", "/runs", spec(engine), header)
		var run bench.Run
		if err := json.Unmarshal(body, &run); err != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST /runs with engine %q = %d %s", engine, resp.StatusCode, body)
		}
		if run.Spec.Engine != want {
			t.Errorf("engine %q: stored spec runs on %q, want %q", engine, run.Spec.Engine, want)
		}
		d.waitStatus(t, run.ID, bench.RunSucceeded)
		if got := d.run(t, run.ID); len(got.Environment.Engines) != 1 || got.Environment.Engines[0].Name != want || got.Targets[0].Engine != want {
			t.Errorf("engine %q: environment %+v, target on %q; want %s recorded", engine, got.Environment.Engines, got.Targets[0].Engine, want)
		}
	}
}

// problem is the part of an application/problem+json body the tests read.
type problem struct {
	Status int    `json:"status"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

func decodeProblem(t *testing.T, body []byte) problem {
	t.Helper()
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("not a problem document: %v: %s", err, body)
	}
	return p
}

// TestServeSwarm: a daemon whose configuration sends attacks from a
// swarm's two generators refuses, before anything is queued, a spec they
// cannot send (a warm-up until steady, the default; a stage of one
// client), naming the field, and takes one they can.
func TestServeSwarm(t *testing.T) {
	d := startStandInServe(t, time.Millisecond, nil, "--config", "testdata/config/swarm.yaml")
	header := map[string]string{"Content-Type": "application/json"}
	for _, tt := range []struct {
		name, spec, field string
	}{
		{"UntilSteady", `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"light"}]}}`, "warmup.untilSteady"},
		{"OneClient", `{"targets":["go"],"profile":{"model":"closed","stages":[{"duration":"5s","concurrency":1}]},"workload":{"requests":[{"endpoint":"light"}]},"warmup":{"disabled":true}}`, "profile.stages[0].concurrency"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := d.request(t, "POST", "/runs", tt.spec, header)
			if p := decodeProblem(t, body); resp.StatusCode != http.StatusBadRequest || p.Field != tt.field || !strings.Contains(p.Detail, "2 swarm generators") {
				t.Errorf("POST /runs = %d %s, want 400 naming %s and the generators", resp.StatusCode, body, tt.field)
			}
		})
	}
	resp, body := d.request(t, "POST", "/runs", `{"targets":["go"],"profile":"smoke","workload":{"requests":[{"endpoint":"light"}]},"warmup":{"duration":"1s","rate":10}}`, header)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a fixed warm-up: POST /runs = %d %s, want 202", resp.StatusCode, body)
	}
}
