//go:build integration

package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// The daemon's start removes what its own history's runs left and nothing
// of another history's on the same engine; then twenty runs submitted and
// cancelled in a burst, the cancels landing anywhere from the image lookup
// to the attack (container creation included), leave no container behind.
func TestDaemonLeavesNoContainers(t *testing.T) {
	// Side by side, on an attack lock of its own: a long run of another
	// process on this machine would otherwise hold every run of the burst
	// back until it is cancelled, and the start-up cleanup with them.
	sideBySide(t)
	begin := time.Now()
	db := t.TempDir() + "/history.db"
	history, err := openHistoryDB(t, db).HistoryID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	other := fmt.Sprintf("test-other-%d", time.Now().UnixNano())
	theirs := plantContainer(t, other, "theirs")
	mine := plantContainer(t, history, "stale-run-of-this-history")

	// The start-up cleanup runs when the daemon first holds the host's
	// attack lock: at once, or with its first run if another process on
	// this host is attacking right now.
	d := startInProcessDaemon(t, db)
	t.Logf("this history's stale container %.12s at the daemon's start: %v", mine.ContainerID(), historyContainers(t, history))

	a := apiClient{t: t, base: d.url}
	const runs = 20
	ids := make([]string, runs)
	for i := range ids {
		run := a.submit(shortSpec(fmt.Sprintf("burst-%d", i)))
		ids[i] = run.ID
		// From at once to 2.85 s: before the start, during the create
		// call, the health check, the warm-up and the attack.
		time.Sleep(time.Duration(i) * 150 * time.Millisecond)
		if resp, body := a.do(http.MethodPost, "/runs/"+run.ID+"/cancel", nil); resp.StatusCode >= 300 &&
			resp.StatusCode != http.StatusConflict { // 409: it finished first
			t.Fatalf("cancel %s: %s\n%s", run.ID, resp.Status, body)
		}
	}
	statuses := map[string]int{} // "status: error" -> runs
	for _, id := range ids {
		run := a.waitRun(id, shortRunTimeout, "finished", func(r *bench.Run) bool { return r.Status.Finished() })
		statuses[string(run.Status)+": "+run.Error]++
	}
	time.Sleep(5 * time.Second)
	if st, err := theirs.State(context.Background()); err != nil || !st.Running {
		t.Errorf("another history's container: %+v, %v; want it left running by this daemon", st, err)
	}
	if left := historyContainers(t, history); len(left) != 0 {
		t.Errorf("5 s after %d runs cancelled in a burst (%v), containers left: %v", runs, statuses, left)
	}
	t.Logf("%d runs cancelled in a burst: %v; this history's containers after 5 s: %v; whole test %s", runs, statuses, historyContainers(t, history),
		time.Since(begin).Round(time.Millisecond))
}

// plantContainer starts the Go target as a run of history would have, and
// removes it when the test ends if nothing else did.
func plantContainer(t *testing.T, history, runID string) *targets.Instance {
	t.Helper()
	rt, err := targets.NewRuntime(targets.RuntimeOptions{History: history})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	img, err := rt.BuildTarget(context.Background(), bench.TargetGo, targets.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := rt.StartTarget(context.Background(), bench.TargetGo, img, targets.StartOptions{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(context.Background()) })
	return inst
}

// historyContainers lists the containers, running or not, labelled with
// one history's identity.
func historyContainers(t *testing.T, history string) []string {
	t.Helper()
	return labelledContainers(t, func(c container.Summary) string {
		return fmt.Sprintf("%.12s %s (%s)", c.ID, c.Labels[targets.LabelRun], c.State)
	}, targets.LabelHistory+"="+history)
}
