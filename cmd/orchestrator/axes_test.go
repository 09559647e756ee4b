package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
)

// poolAxis is an axis of the orders jar's own, two Tomcat pools, beside
// Spring Boot's two thread models.
const poolAxis = `
    axes:
      pool:
        t200: {SERVER_TOMCAT_THREADS_MAX: "200"}
        t400: {SERVER_TOMCAT_THREADS_MAX: "400"}
`

// fakeJar is a file by a jar's name, enough for what is checked before a
// run starts.
func fakeJar(t *testing.T) string {
	t.Helper()
	jar := filepath.Join(t.TempDir(), "orders-1.0.jar")
	if err := os.WriteFile(jar, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	return jar
}

// configWith writes a configuration file whose one target is the jar with
// more of its definition.
func configWith(t *testing.T, jar, more string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("targets:\n  - name: orders\n    jar: "+jar+more), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The API takes a service's variants by name only: a reference that names
// some of its axes runs every variant with the others, written as the
// catalog names them; one with a value it has not is a 400 naming the
// target's field, and no run is stored.
func TestAxesThroughTheAPI(t *testing.T) {
	cfgPath := configWith(t, fakeJar(t), "\n    jdks: [21, 25]"+poolAxis)
	d := startStandInServe(t, time.Millisecond, nil, "--config", cfgPath)
	header := map[string]string{"Content-Type": "application/json"}

	bad := `{"targets": ["orders@virtual,jdk=17"], "profile": "smoke", "workload": {"requests": [{"uri": "/orders"}]}}`
	if resp, body := d.request(t, "POST", "/runs", bad, header); resp.StatusCode != http.StatusBadRequest || !contains(body, `"field":"targets[0]"`, `has no jdk \"17\" (jdk: 21, 25)`) {
		t.Errorf("POST /runs with jdk=17 = %d %s, want 400 naming targets[0]", resp.StatusCode, body)
	}
	if runs := d.listRuns(t); len(runs) != 0 {
		t.Fatalf("%d runs stored, want none", len(runs))
	}
	ok := `{"targets": ["orders@jdk=25,pool=t400"], "profile": "smoke", "warmup": {"disabled": true}, "workload": {"requests": [{"uri": "/orders"}]}}`
	if resp, body := d.request(t, "POST", "/runs", ok, header); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /runs = %d: %s", resp.StatusCode, body)
	}
	runs := d.listRuns(t)
	var got []string
	for _, r := range runs {
		for _, tr := range r.Targets {
			got = append(got, tr.Target)
		}
	}
	if want := []string{"orders@platform,jdk=25,pool=t400", "orders@virtual,jdk=25,pool=t400"}; len(runs) != 1 || !slices.Equal(got, want) {
		t.Errorf("stored targets %v, want %v", got, want)
	}
}

func contains(body []byte, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(string(body), p) {
			return false
		}
	}
	return true
}

// One command runs a jar on each JDK in both thread models; --variant
// picks by the values of the axes; the built-in Java targets run on each
// JDK too, and --targets takes a variant with its axes as one reference.
func TestRunOnEachJDK(t *testing.T) {
	saved := openRunDeps
	t.Cleanup(func() { openRunDeps = saved })
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		return newStandInDeps(g, cfg, db, time.Millisecond), nil
	}
	jar := fakeJar(t)
	common := []string{"run", "-q", "--profile", "smoke", "--no-warmup"}
	own := append([]string{"--jar", jar, "--requests", "testdata/targets/shop.txt"}, common...)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"FourVariants", append([]string{"--jdk", "21,25"}, own...),
			[]string{"orders@platform,jdk=21", "orders@platform,jdk=25", "orders@virtual,jdk=21", "orders@virtual,jdk=25"}},
		{"Picked", append([]string{"--jdk", "21,25", "--variant", "virtual", "--variant", "jdk=25"}, own...), []string{"orders@virtual,jdk=25"}},
		{"OneJDKNoAxis", append([]string{"--jdk", "21"}, own...), []string{"orders@platform", "orders@virtual"}},
		{"AnAxisOfItsOwn", append([]string{"--jdk", "21,25", "--axis", "pool.t8=SERVER_TOMCAT_THREADS_MAX=8", "--axis", "pool.t200=SERVER_TOMCAT_THREADS_MAX=200",
			"--axis", "pool.t200=-Xss512k", "--variant", "virtual"}, own...),
			[]string{"orders@virtual,jdk=21,pool=t8", "orders@virtual,jdk=21,pool=t200", "orders@virtual,jdk=25,pool=t8", "orders@virtual,jdk=25,pool=t200"}},
		{"Builtins", append([]string{"--targets", "java-virtual,go", "--jdk", "25,21", "--endpoint", "light"}, common...),
			[]string{"java-virtual@25", "java-virtual@21", "go"}},
	} {
		t.Run(tt.name, func(t *testing.T) { wantRunTargets(t, tt.args, tt.want) })
	}
}

// wantRunTargets runs the command with a history of its own and checks
// the targets of the one run it stores.
func wantRunTargets(t *testing.T, args, want []string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "history.db")
	code, _, stderr := run(t, nil, append([]string{"--db", db}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs := storedRuns(t, db)
	if len(runs) != 1 || !slices.Equal(runs[0].Spec.Targets, want) {
		t.Errorf("targets %v, want %v", runs[0].Spec.Targets, want)
	}
}

// A run sent to a daemon names a configured service's variant with its
// axes in one --targets item, and carries the requests of a vegeta
// targets file the CLI read.
func TestRunServerVariantOnAxes(t *testing.T) {
	d := startStandInServe(t, time.Millisecond, nil, "--config", configWith(t, fakeJar(t), poolAxis))
	code, _, stderr := run(t, nil, "run", "--server", d.base, "-q", "--targets", "orders@virtual,pool=t400", "--requests", "testdata/targets/shop.txt",
		"--profile", "smoke", "--no-warmup")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs := d.listRuns(t)
	if len(runs) != 1 || len(runs[0].Targets) != 1 || runs[0].Targets[0].Target != "orders@virtual,pool=t400" {
		t.Fatalf("runs %+v, want one of orders@virtual,pool=t400", runs)
	}
	var full bench.Run
	if resp, body := d.request(t, "GET", "/runs/"+runs[0].ID, "", nil); resp.StatusCode != http.StatusOK || json.Unmarshal(body, &full) != nil {
		t.Fatalf("GET /runs/%s = %d", runs[0].ID, resp.StatusCode)
	}
	if reqs := full.Spec.Workload.Requests; len(reqs) == 0 || reqs[0].URI == "" {
		t.Errorf("workload %+v, want the targets file's requests by uri", full.Spec.Workload)
	}
}
