package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/store"
)

// twoBuilds writes two jar files, orders.jar and orders-slower.jar, enough
// for what is checked before a run starts.
func twoBuilds(t *testing.T) (before, after string) {
	t.Helper()
	dir := t.TempDir()
	before, after = filepath.Join(dir, "orders.jar"), filepath.Join(dir, "orders-slower.jar")
	for _, jar := range []string{before, after} {
		if err := os.WriteFile(jar, []byte("PK"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return before, after
}

// configBuilds writes a configuration file whose one target is two
// builds, jars: in place of jar:.
func configBuilds(t *testing.T, before, after string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("targets:\n  - name: orders\n    jars: ["+before+", "+after+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --jar given twice runs two builds of one service as an axis, build,
// valued by the jars' file names: beside the thread models and the JDKs,
// every combination; --variant picks by it as by any axis. One --jar runs
// as it always has, with no build axis. A configuration's jars: are the
// same axis.
func TestRunTwoBuilds(t *testing.T) {
	saved := openRunDeps
	t.Cleanup(func() { openRunDeps = saved })
	openRunDeps = func(g *globalState, cfg config, db *store.DB, _ bool) (*runDeps, error) {
		return newStandInDeps(g, cfg, db, time.Millisecond), nil
	}
	before, after := twoBuilds(t)
	common := []string{"run", "-q", "--profile", "smoke", "--no-warmup", "--requests", "testdata/targets/shop.txt"}
	both := append([]string{"--jar", before, "--jar", after}, common...)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"OneJar", append([]string{"--jar", before}, common...), []string{"orders@platform", "orders@virtual"}},
		{"TwoBuilds", both, []string{"orders@platform,build=orders", "orders@platform,build=orders-slower",
			"orders@virtual,build=orders", "orders@virtual,build=orders-slower"}},
		{"PickedByThreadModel", append([]string{"--variant", "virtual"}, both...), []string{"orders@virtual,build=orders", "orders@virtual,build=orders-slower"}},
		{"PickedByBuild", append([]string{"--variant", "build=orders-slower"}, both...), []string{"orders@platform,build=orders-slower", "orders@virtual,build=orders-slower"}},
		{"OnEachJDK", append([]string{"--jdk", "21,25"}, both...), []string{
			"orders@platform,jdk=21,build=orders", "orders@platform,jdk=21,build=orders-slower",
			"orders@platform,jdk=25,build=orders", "orders@platform,jdk=25,build=orders-slower",
			"orders@virtual,jdk=21,build=orders", "orders@virtual,jdk=21,build=orders-slower",
			"orders@virtual,jdk=25,build=orders", "orders@virtual,jdk=25,build=orders-slower"}},
		{"InTheConfiguration", append([]string{"--config", configBuilds(t, before, after), "--targets", "orders@virtual"}, common...),
			[]string{"orders@virtual,build=orders", "orders@virtual,build=orders-slower"}},
		{"OnEachJDKPicked", append([]string{"--jdk", "21,25", "--variant", "build=orders-slower", "--variant", "virtual"}, both...), []string{
			"orders@virtual,jdk=21,build=orders-slower", "orders@virtual,jdk=25,build=orders-slower"}},
	} {
		t.Run(tt.name, func(t *testing.T) { wantRunTargets(t, tt.args, tt.want) })
	}
}

// Builds given wrongly are refused naming --jar, with exit 2, before the
// history or an engine is touched.
func TestRunTwoBuildsBadInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before, after := twoBuilds(t)
	twin := filepath.Join(t.TempDir(), "orders.jar")
	if err := os.WriteFile(twin, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	var five []string
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		jar := filepath.Join(t.TempDir(), name+".jar")
		os.WriteFile(jar, []byte("PK"), 0o644)
		five = append(five, "--jar", jar)
	}
	requests := []string{"--requests", "testdata/targets/shop.txt"}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"Missing", []string{"--jar", before, "--jar", "testdata/nope.jar"}, "jar: no jar file at testdata/nope.jar"},
		{"OneName", []string{"--jar", before, "--jar", twin}, "jar: " + before + " and " + twin + ` are both build "orders"`},
		{"TooMany", five, "jar: at most 4 builds of one service run side by side, got 5"},
		{"WithAnImage", []string{"--jar", before, "--jar", after, "--image", "orders:1"}, "jar: give one of --jar, --image or --dockerfile"},
		{"ToDaemon", []string{"--server", "http://127.0.0.1:9", "--jar", before, "--jar", after}, "jar: a daemon runs only the targets of its configuration"},
		{"UnknownBuild", append([]string{"--jar", before, "--jar", after, "--variant", "build=orders-faster"}, requests...),
			`variant: target orders has no build "orders-faster" (build: orders, orders-slower)`},
		{"AxisOfItsName", []string{"--jar", before, "--jar", after, "--axis", "build.a=X=1", "--axis", "build.b=X=2"}, "axes.build: collides with the builds' axis"},
	} {
		t.Run(tt.name, func(t *testing.T) { wantRunRefused(t, ctx, tt.args, tt.want) })
	}
}

// The daemon's API names no jar: a run refers to a configured target by
// name, and a spec that carries jars is refused whole (400, no run
// stored), so builds come only from the CLI's user or the daemon's
// configuration.
func TestRunSpecNamesNoJar(t *testing.T) {
	before, after := twoBuilds(t)
	d := startStandInServe(t, time.Millisecond, nil, "--config", configWith(t, before, "\n"))
	for _, field := range []string{"jar", "jars"} {
		spec := `{"targets": ["orders@virtual"], "profile": "smoke", "workload": {"requests": [{"uri": "/orders"}]}, "` + field + `": ["` + after + `"]}`
		resp, body := d.request(t, "POST", "/runs", spec, map[string]string{"Content-Type": "application/json"})
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST /runs with %s = %d %s, want 400", field, resp.StatusCode, body)
		}
	}
	if runs := d.listRuns(t); len(runs) != 0 {
		t.Errorf("%d runs stored, want none", len(runs))
	}
}
