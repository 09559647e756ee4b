package load

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
)

// TestSpoolKeepsAHorizon: of 200 seconds the spool holds at most two
// horizons in memory, a second past the horizon is no longer patched,
// and all of them come back in order as they were, histograms and the
// patches of those still held included.
func TestSpoolKeepsAHorizon(t *testing.T) {
	s := newSpool(time.Second, time.Second) // 2 s + 10 s margin: 13 seconds
	if s.horizon != 13 {
		t.Fatalf("horizon %d seconds, want 13", s.horizon)
	}
	var want []bench.Bucket
	for i := range 200 {
		h := hdr.New()
		for k := range 50 + i {
			hdr.Record(h, time.Duration(k+i)*time.Millisecond)
		}
		enc, err := hdr.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		b := bench.Bucket{Second: i, Stats: bench.Stats{Requests: int64(50 + i), Completed: int64(50 + i), Histogram: enc,
			Latency: hdr.Summarize(h), Elapsed: bench.Duration(time.Second)}, Generator: &bench.Generator{CPUs: 1, StealShare: 0.01}}
		s.add(b)
		want = append(want, b)
		if len(s.mem) > 2*s.horizon {
			t.Fatalf("after %d seconds %d in memory, want at most %d", i+1, len(s.mem), 2*s.horizon)
		}
	}
	if s.base == 0 || s.file == nil {
		t.Fatalf("nothing written out of 200 seconds (base %d)", s.base)
	}
	if s.at(0) != nil || s.at(200) != nil || !s.reported(0) || s.reported(200) {
		t.Errorf("second 0 (written out) or 200 (not reported) patchable, or reported wrong")
	}
	s.at(195).Stats.Completed += 5
	want[195].Stats.Completed += 5
	got, err := s.all()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 200 {
		t.Fatalf("%d seconds back, want 200", len(got))
	}
	for i := range want {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(want[i])
		if string(a) != string(b) {
			t.Fatalf("second %d came back as\n%s\nwant\n%s", i, a, b)
		}
	}
}

// TestRecorderSpoolsALongAttack: 90 seconds of ten closed clients, their
// answers filed as they come (some after their second was reported), give
// the same seconds (the generator's own figures aside) whether the recorder wrote most of them out (a 100 ms
// timeout: a horizon of 11 s) or held them all (the default 30 s).
func TestRecorderSpoolsALongAttack(t *testing.T) {
	attack := func(timeout time.Duration) ([]bench.Bucket, int) {
		plan := bench.Plan{
			Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Weight: 1}}, Timeout: bench.Duration(timeout)},
			Profile:  bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(90), Concurrency: 10}}},
		}
		r := newRecorder(plan, newTimetable(plan), newRequestSet("http://127.0.0.1:1", plan.Workload), bench.Observer{},
			recorderConfig{bucket: time.Second, cpus: 1, wire: newWire()}, time.Now())
		type req struct{ sent, done time.Duration }
		var reqs []req
		for c := range 10 {
			for sent := time.Duration(c) * 7 * time.Millisecond; sent < 90*time.Second; {
				service := time.Duration(40+(int(sent/time.Millisecond)*7+c*13)%70) * time.Millisecond
				reqs = append(reqs, req{sent, sent + service})
				sent += service + time.Millisecond
			}
		}
		slices.SortFunc(reqs, func(a, b req) int { return int(a.done - b.done) })
		tick := time.Second
		for _, q := range reqs {
			for q.done > tick {
				fire(r.tick(tick, false))
				tick += time.Second
			}
			r.sending(q.sent)
			r.record(outcome{intended: q.sent, sent: q.sent, done: q.done, code: 200})
		}
		fire(r.tick(reqs[len(reqs)-1].done, true))
		base := r.done.base
		res, err := r.result()
		if err != nil {
			t.Fatal(err)
		}
		return res.Seconds, base
	}
	held, heldOut := attack(bench.DefaultTimeout.D())
	spooled, out := attack(100 * time.Millisecond)
	if heldOut != 0 || out < 60 {
		t.Fatalf("%d seconds written out at the default timeout (want 0), %d at 100 ms (want 60 or more)", heldOut, out)
	}
	if len(held) != 90 || len(spooled) != 90 {
		t.Fatalf("%d and %d seconds, want 90 each", len(held), len(spooled))
	}
	var completed int64
	for i := range held {
		// The generator's figures are the process's own CPU, read as it ran.
		held[i].Generator, spooled[i].Generator = nil, nil
		a, _ := json.Marshal(held[i])
		b, _ := json.Marshal(spooled[i])
		if string(a) != string(b) {
			t.Fatalf("second %d held:\n%s\nspooled:\n%s", i, a, b)
		}
		completed += held[i].Stats.Completed
	}
	if completed < 10*90*1000/80 {
		t.Errorf("%d completed in 90 s of ten clients on 40-110 ms: the attack was not recorded", completed)
	}
}
