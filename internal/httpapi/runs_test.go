package httpapi_test

import (
	"github.com/threadbench/threadbench/api"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

func TestSubmitRun(t *testing.T) {
	t.Run("ProfileByName", func(t *testing.T) {
		e := newEnv(t)
		var got bench.RunSpec
		e.runs.SubmitFn = func(_ ctxT, spec bench.RunSpec) (*bench.Run, error) {
			got = spec
			run := sampleRun("r42", bench.RunQueued)
			run.Spec = spec
			return run, nil
		}
		req := e.newRequest(t, "POST", "/runs", `{"name":"n","targets":["go","java-virtual"],"profile":"smoke",
			"workload":{"requests":[{"endpoint":"heavy","params":{"duration":"200"},"weight":3}],"timeout":"5s"},
			"warmup":{"disabled":true},"limits":{"cpus":1.5,"memoryMiB":512},
			"java":{"tomcatMaxThreads":100,"virtualParallelism":2,"heapPercent":60,"gc":"ZGC"}}`)
		resp := e.send(t, req)
		if got, want := resp.StatusCode, http.StatusAccepted; got != want {
			t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
		}
		if got, want := resp.Header.Get("Location"), "/runs/r42"; got != want {
			t.Errorf("Location = %q, want %q", got, want)
		}
		conforms(t, req, resp)
		want := bench.RunSpec{
			Name: "n", Targets: []string{"go", "java-virtual"}, Profile: bench.Profile{Name: "smoke"},
			Workload: bench.Workload{Requests: []bench.Request{{Endpoint: "heavy", Params: map[string]string{"duration": "200"}, Weight: 3}},
				Timeout: bench.Duration(5 * time.Second)},
			Warmup: bench.Warmup{Disabled: true},
			Limits: bench.Limits{CPUs: 1.5, MemoryMiB: 512},
			Java:   bench.JavaOptions{TomcatMaxThreads: 100, VirtualParallelism: 2, HeapPercent: 60, GC: "ZGC"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("submitted spec\n %+v\nwant\n %+v", got, want)
		}
		if run := decode[bench.Run](t, resp); run.ID != "r42" || run.Status != bench.RunQueued {
			t.Errorf("body = run %s %s, want r42 queued", run.ID, run.Status)
		}
	})
	// A capacity search needs no profile: the document says so and the
	// spec reaches the queue with its objective.
	t.Run("CapacitySearch", func(t *testing.T) {
		e := newEnv(t)
		var got bench.RunSpec
		e.runs.SubmitFn = func(_ ctxT, spec bench.RunSpec) (*bench.Run, error) {
			got = spec
			run := sampleRun("r44", bench.RunQueued)
			run.Spec = spec
			return run, nil
		}
		req := e.newRequest(t, "POST", "/runs", `{"targets":["go"],"capacity":{"objective":"p99<=300ms,errors<=0.1%","budget":"2m"},
			"workload":{"requests":[{"endpoint":"heavy","params":{"duration":"200"}}]}}`)
		resp := e.send(t, req)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("status = %d: %s", resp.StatusCode, resp.body)
		}
		conforms(t, req, resp)
		if got.Capacity == nil || got.Capacity.Objective != "p99<=300ms,errors<=0.1%" || got.Capacity.Budget != bench.Duration(2*time.Minute) {
			t.Errorf("submitted capacity %+v", got.Capacity)
		}
	})
	t.Run("ProfileWrittenOut", func(t *testing.T) {
		e := newEnv(t)
		var got bench.RunSpec
		e.runs.SubmitFn = func(_ ctxT, spec bench.RunSpec) (*bench.Run, error) {
			got = spec
			return sampleRun("r43", bench.RunQueued), nil
		}
		resp := e.do(t, "POST", "/runs", `{"targets":["go"],"profile":{"model":"closed","stages":[
			{"name":"ramp","duration":"30s","concurrency":200,"ramp":true},{"duration":"1m30s","concurrency":200}]},"workload":{"requests":[{"endpoint":"light"}]}}`)
		if got, want := resp.StatusCode, http.StatusAccepted; got != want {
			t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
		}
		want := bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{
			{Name: "ramp", Duration: bench.Duration(30 * time.Second), Concurrency: 200, Ramp: true},
			{Duration: bench.Duration(90 * time.Second), Concurrency: 200},
		}}
		if !reflect.DeepEqual(got.Profile, want) {
			t.Errorf("profile = %+v, want %+v", got.Profile, want)
		}
	})
}

// TestListRuns checks that filters, limit and cursor reach the store as
// given and that the next cursor comes back.
func TestListRuns(t *testing.T) {
	e := newEnv(t)
	var got bench.RunFilter
	e.store.FindRunSummariesFn = func(_ ctxT, f bench.RunFilter) ([]bench.RunSummary, string, error) {
		got = f
		return []bench.RunSummary{sampleRun("r2", bench.RunSucceeded).Summary(), sampleRun("r1", bench.RunFailed).Summary()}, "1777636800000000002.r2", nil
	}
	req := e.newRequest(t, "GET", "/runs?status=succeeded,failed&status=running&target=go&name=n&label=branch%3Dmain&label=ref%3Da%3Db"+
		"&since=2026-05-01T00:00:00Z&until=2026-05-02T00:00:00%2B02:00&limit=2&cursor=1777636800000000001.r1", "")
	resp := e.send(t, req)
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
	}
	conforms(t, req, resp)
	since := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 5, 1, 22, 0, 0, 0, time.UTC)
	want := bench.RunFilter{
		Status: []bench.RunStatus{bench.RunSucceeded, bench.RunFailed, bench.RunRunning},
		Target: "go", Name: "n", Limit: 2, Cursor: "1777636800000000001.r1",
		Labels: map[string]string{"branch": "main", "ref": "a=b"},
	}
	if got.Since == nil || !got.Since.Equal(since) || got.Until == nil || !got.Until.Equal(until) {
		t.Errorf("since, until = %v, %v, want %v, %v", got.Since, got.Until, since, until)
	}
	got.Since, got.Until = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("filter = %+v, want %+v", got, want)
	}
	list := decode[api.RunList](t, resp)
	if len(list.Runs) != 2 || list.Runs[0].ID != "r2" || list.NextCursor != "1777636800000000002.r2" {
		t.Errorf("list = %d runs, first %q, next %q; want 2, r2, 1777636800000000002.r2", len(list.Runs), list.Runs[0].ID, list.NextCursor)
	}
}

func TestListRunsLastPage(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunSummariesFn = func(ctxT, bench.RunFilter) ([]bench.RunSummary, string, error) { return nil, "", nil }
	req := e.newRequest(t, "GET", "/runs", "")
	resp := e.send(t, req)
	conforms(t, req, resp)
	if got, want := string(resp.body), "{\"runs\":[]}\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

func TestGetRun(t *testing.T) {
	e := newEnv(t)
	want := sampleRun("r1", bench.RunSucceeded)
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		if id != "r1" {
			return nil, notFound(id)
		}
		return want, nil
	}
	req := e.newRequest(t, "GET", "/runs/r1", "")
	resp := e.send(t, req)
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
	}
	conforms(t, req, resp)
	got := decode[bench.Run](t, resp)
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("run = %+v\nwant %+v", got, want)
	}
}

func TestDeleteRun(t *testing.T) {
	e := newEnv(t)
	var deleted string
	e.store.DeleteRunFn = func(_ ctxT, id string) error { deleted = id; return nil }
	req := e.newRequest(t, "DELETE", "/runs/r1", "")
	resp := e.send(t, req)
	if got, want := resp.StatusCode, http.StatusNoContent; got != want {
		t.Fatalf("status = %d, want %d", got, want)
	}
	conforms(t, req, resp)
	if deleted != "r1" {
		t.Errorf("deleted %q, want r1", deleted)
	}
}

func TestCancelRun(t *testing.T) {
	e := newEnv(t)
	e.runs.CancelFn = func(_ ctxT, id string) (*bench.Run, error) { return sampleRun(id, bench.RunCanceled), nil }
	req := e.newRequest(t, "POST", "/runs/r1/cancel", "")
	resp := e.send(t, req)
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
	}
	conforms(t, req, resp)
	if run := decode[bench.Run](t, resp); run.ID != "r1" || run.Status != bench.RunCanceled {
		t.Errorf("run = %s %s, want r1 canceled", run.ID, run.Status)
	}
}

func TestGetSeries(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return sampleRun(id, bench.RunSucceeded), nil }
	var gotNames []string
	e.store.FindSeriesFn = func(_ ctxT, runID, target string, names []string) ([]bench.Series, error) {
		gotNames = names
		return []bench.Series{{Name: "go_goroutines", Labels: map[string]string{"job": target}, Points: []bench.Point{{T: -1, V: 10}, {T: 0, V: 12}}}}, nil
	}
	req := e.newRequest(t, "GET", "/runs/r1/targets/go/series?name=go_goroutines&name=process_cpu_seconds_total", "")
	resp := e.send(t, req)
	if got, want := resp.StatusCode, http.StatusOK; got != want {
		t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
	}
	conforms(t, req, resp)
	if want := []string{"go_goroutines", "process_cpu_seconds_total"}; !reflect.DeepEqual(gotNames, want) {
		t.Errorf("names = %q, want %q", gotNames, want)
	}
	if list := decode[api.SeriesList](t, resp); len(list.Series) != 1 || len(list.Series[0].Points) != 2 {
		t.Errorf("series = %+v", list.Series)
	}
}

// A variant's comma may come escaped (url.PathEscape's %2C) or not: both
// name the same target.
func TestGetSeriesOfAnEscapedTarget(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		run := sampleRun(id, bench.RunSucceeded)
		run.Targets[0].Target = "orders@virtual,jdk=21"
		return run, nil
	}
	var got []string
	e.store.FindSeriesFn = func(_ ctxT, runID, target string, names []string) ([]bench.Series, error) {
		got = append(got, target)
		return nil, nil
	}
	for _, path := range []string{"/runs/r1/targets/orders@virtual%2Cjdk=21/series", "/runs/r1/targets/orders@virtual,jdk=21/series"} {
		if resp := e.send(t, e.newRequest(t, "GET", path, "")); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, resp.body)
		}
	}
	if want := []string{"orders@virtual,jdk=21", "orders@virtual,jdk=21"}; !reflect.DeepEqual(got, want) {
		t.Errorf("series asked of %q, want %q", got, want)
	}
}

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		query     string
		threshold float64
	}{
		{"base=a&head=b", 5},                 // the default
		{"base=a&head=b&threshold=2.5", 2.5}, // as given
		{"base=a&head=b&threshold=0", 0},     // zero is a threshold, not "unset"
	} {
		t.Run(tt.query, func(t *testing.T) {
			var gotBase, gotHead string
			var gotThreshold float64
			e := newEnv(t, func(c *httpapi.Config) {
				c.Compare = func(base, head *bench.Run, threshold float64) bench.Comparison {
					gotBase, gotHead, gotThreshold = base.ID, head.ID, threshold
					return bench.Comparison{Base: ref(base), Head: ref(head), NoiseThreshold: threshold,
						Targets: []bench.TargetComparison{{Target: "go", Metrics: []bench.MetricDelta{{
							Name: "p99", Unit: "ms", Base: 10, Head: 9, Change: -10, Verdict: bench.VerdictBetter}}}}}
				}
			})
			e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return sampleRun(id, bench.RunSucceeded), nil }
			req := e.newRequest(t, "GET", "/compare?"+tt.query, "")
			resp := e.send(t, req)
			if got, want := resp.StatusCode, http.StatusOK; got != want {
				t.Fatalf("status = %d, want %d: %s", got, want, resp.body)
			}
			conforms(t, req, resp)
			if gotBase != "a" || gotHead != "b" || gotThreshold != tt.threshold {
				t.Errorf("Compare(%s, %s, %v), want (a, b, %v)", gotBase, gotHead, gotThreshold, tt.threshold)
			}
			if c := decode[bench.Comparison](t, resp); c.NoiseThreshold != tt.threshold || c.Targets[0].Metrics[0].Verdict != bench.VerdictBetter {
				t.Errorf("comparison = %+v", c)
			}
		})
	}
}
