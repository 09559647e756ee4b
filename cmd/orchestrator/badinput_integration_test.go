//go:build integration

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	wire "github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// badSpecs break one field each that used to pass the checks and fail only
// when the Java target started, after the Go target had been attacked.
var badSpecs = []struct {
	name  string
	flags []string       // the CLI's way to say it
	body  map[string]any // the API's way: changes to a valid spec
	field string
}{
	{"unknown GC", []string{"--gc", "bogus"}, map[string]any{"java": map[string]any{"gc": "bogus"}}, "java.gc"},
	{"negative Tomcat pool", []string{"--tomcat-max-threads", "-5"}, map[string]any{"java": map[string]any{"tomcatMaxThreads": -5}}, "java.tomcatMaxThreads"},
	{"too many rounds", []string{"--repeat", "21"}, map[string]any{"repeat": 21}, "repeat"},
	{"unknown profile field", []string{"--profile", "PROFILE"},
		map[string]any{"profile": map[string]any{"model": "open", "stagez": []any{}}}, "profile.stagez"},
	{"unknown endpoint parameter", []string{"--endpoint", "heavy", "--param", "work=5"},
		map[string]any{"workload": map[string]any{"requests": []any{map[string]any{"endpoint": "heavy", "params": map[string]any{"work": "5"}}}}},
		"workload.requests[0].params.work"},
	// A service of one's own: the CLI's jar or Dockerfile must be there; a
	// caller of the API may give neither (the daemon's configuration does).
	{"jar", []string{"--jar", "/nonexistent/app.jar"}, map[string]any{"jar": "/srv/app.jar"}, "jar"},
	{"dockerfile", []string{"--dockerfile", "/nonexistent"}, map[string]any{"dockerfile": "/srv/app"}, "dockerfile"},
	// A variant's axes: a JDK the project cannot build, an axis the target has not.
	{"JDK it cannot build", []string{"--targets", "java-virtual@jdk=17"},
		map[string]any{"targets": []string{"go", "java-platform", "java-virtual", "java-virtual@jdk=17"}}, "targets[3]"},
	{"unknown axis", []string{"--targets", "java-virtual@gc=z"},
		map[string]any{"targets": []string{"go", "java-platform", "java-virtual", "java-virtual@gc=z"}}, "targets[3]"},
	// Engines are named as configured: neither one that is not, nor one by URL.
	{"engine not configured", []string{"--engine", "lab"}, map[string]any{"engine": "lab"}, "engine"},
	{"engine by URL", []string{"--engine", "tcp://198.18.0.2:2375"}, map[string]any{"engine": "tcp://198.18.0.2:2375"}, "engine"},
}

// noRunsOf fails the test if the history at db holds a run or any
// container carries its identity: a refused spec starts nothing. Tests
// side by side create containers of their own meanwhile, so only this
// history's count; a refusal that did not even create the history made
// neither.
func noRunsOf(t *testing.T, db string) {
	t.Helper()
	if _, err := os.Stat(db); err != nil {
		return
	}
	h := openHistoryDB(t, db)
	history, err := h.HistoryID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if left := historyContainers(t, history); len(left) > 0 {
		t.Errorf("containers were created for a bad spec: %v", left)
	}
	if runs, _, err := h.FindRunSummaries(context.Background(), bench.RunFilter{Limit: 10}); err != nil || len(runs) > 0 {
		t.Errorf("a bad spec left runs in the history: %v, %v", runs, err)
	}
}

func TestBadSpecRefusedBeforeAnythingStarts(t *testing.T) {
	sideBySide(t)
	profile := writeFile(t, "bad-profile.yaml", "model: open\nstagez:\n  - {duration: 5s, rate: 10}\n")

	t.Run("CLI", func(t *testing.T) {
		for _, tc := range badSpecs {
			t.Run(tc.name, func(t *testing.T) {
				db := t.TempDir() + "/history.db"
				args := []string{"--db", db, "run", "-q", "--targets", "go,java-platform,java-virtual"}
				for _, f := range tc.flags {
					args = append(args, strings.ReplaceAll(f, "PROFILE", profile))
				}
				code, _, stderr := execCLI(t, args...)
				if code != exitBadInput || !strings.Contains(stderr, tc.field) {
					t.Errorf("exit %d, stderr %q; want %d naming %s", code, stderr, exitBadInput, tc.field)
				}
				noRunsOf(t, db)
			})
		}
	})

	t.Run("API", func(t *testing.T) {
		db := t.TempDir() + "/history.db"
		d := startInProcessDaemon(t, db)
		api := apiClient{t: t, base: d.url}
		for _, tc := range badSpecs {
			t.Run(tc.name, func(t *testing.T) {
				spec := shortSpec("bad")
				spec["targets"] = []string{"go", "java-platform", "java-virtual"}
				for k, v := range tc.body {
					spec[k] = v
				}
				resp, body := api.do("POST", "/runs", spec)
				var p wire.Problem
				_ = json.Unmarshal(body, &p)
				if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != wire.ProblemContentType || p.Field != tc.field {
					t.Errorf("%d %s %s; want 400 problem+json naming %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.field)
				}
			})
		}
		t.Run("image named by a caller", func(t *testing.T) {
			spec := shortSpec("evil")
			spec["java"] = map[string]any{"baseImage": "127.0.0.1:5999/evil/jre:1"}
			resp, body := api.do("POST", "/runs", spec)
			var p wire.Problem
			_ = json.Unmarshal(body, &p)
			if resp.StatusCode != http.StatusBadRequest || p.Field != "java.baseImage" {
				t.Errorf("%d %s; want 400 naming java.baseImage", resp.StatusCode, body)
			}
		})
		t.Run("image named by a caller", func(t *testing.T) {
			spec := shortSpec("evil")
			spec["image"] = "127.0.0.1:5999/evil/app:1"
			resp, body := api.do("POST", "/runs", spec)
			var p wire.Problem
			_ = json.Unmarshal(body, &p)
			if resp.StatusCode != http.StatusBadRequest || p.Field != "image" || !strings.Contains(p.Detail, "never taken from a request") {
				t.Errorf("%d %s; want 400 naming image", resp.StatusCode, body)
			}
		})
		var page wire.RunList
		api.getJSON("/runs", &page)
		if len(page.Runs) != 0 {
			t.Errorf("bad specs left %d runs in the history", len(page.Runs))
		}
		noRunsOf(t, db)
	})

	// A service configured in the daemon serves no contract endpoint: a
	// spec asking it for one is refused by spec.Prepare, through the API
	// and the CLI alike, before its JVM is built or started.
	t.Run("configured service asked a contract endpoint", func(t *testing.T) {
		config := writeFile(t, "config.yaml", "targets:\n  - name: orders\n    jar: "+ordersJar(t)+"\n")
		const field, says = "workload.requests[0].endpoint", "orders@virtual is a service of your own, which serves no contract endpoint"
		db := t.TempDir() + "/history.db"
		d := startInProcessDaemon(t, db, "--config", config)
		resp, body := apiClient{t: t, base: d.url}.do("POST", "/runs", map[string]any{"targets": []string{"orders@virtual"}, "profile": "smoke",
			"workload": map[string]any{"requests": []any{map[string]any{"endpoint": "heavy"}}}})
		var p wire.Problem
		_ = json.Unmarshal(body, &p)
		if resp.StatusCode != http.StatusBadRequest || p.Field != field || !strings.Contains(p.Detail, says) {
			t.Errorf("POST /runs: %d %s; want 400 naming %s", resp.StatusCode, body, field)
		}
		noRunsOf(t, db)
		cliDB := t.TempDir() + "/history.db"
		code, _, stderr := execCLI(t, "--db", cliDB, "--config", config, "run", "-q", "--targets", "orders@virtual", "--endpoint", "heavy")
		if code != exitBadInput || !strings.Contains(stderr, field+": "+says) {
			t.Errorf("CLI: exit %d, stderr %q; want %d naming %s", code, stderr, exitBadInput, field)
		}
		noRunsOf(t, cliDB)
	})
}
