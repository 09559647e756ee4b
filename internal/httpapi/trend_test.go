package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/trend"
)

// trendRuns are eight runs of spec "sample", one a minute, whose go
// target served throughputs: the fifth starts a step down.
func trendRuns(throughputs []float64) map[string]*bench.Run {
	runs := map[string]*bench.Run{}
	for i, tp := range throughputs {
		r := sampleRun(fmt.Sprintf("r%d", i+1), bench.RunSucceeded)
		r.CreatedAt = r.CreatedAt.Add(time.Duration(i) * time.Minute)
		r.Spec.Labels = map[string]string{"branch": "main"}
		res := &r.Targets[0]
		stats := *res.Total
		stats.Throughput, stats.Requests, stats.Successes = tp, int64(tp*10), int64(tp*10)
		res.Total, res.Stages[0].Stats, res.Seconds[0].Stats = &stats, stats, stats
		runs[r.ID] = r
	}
	return runs
}

func TestGetTrend(t *testing.T) {
	e := newEnv(t)
	runs := trendRuns([]float64{100, 101, 99, 100, 60, 61, 59, 60})
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		if r, ok := runs[id]; ok {
			return r, nil
		}
		return nil, notFound(id)
	}
	e.store.FindRunSummariesFn = func(_ ctxT, f bench.RunFilter) ([]bench.RunSummary, string, error) {
		var page []bench.RunSummary
		for i := len(runs); i >= 1; i-- { // newest first
			page = append(page, runs[fmt.Sprintf("r%d", i)].Summary())
		}
		return page, "", nil
	}

	t.Run("OK", func(t *testing.T) {
		resp := e.do(t, "GET", "/runs/trend?name=sample&target=go&figure=throughput&label=branch%3Dmain", "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, resp.body)
		}
		var got trend.Trend
		if err := json.Unmarshal(resp.body, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Points) != 8 || got.Points[0].RunID != "r1" {
			t.Fatalf("points %+v, want r1 to r8", got.Points)
		}
		if len(got.ChangePoints) != 1 || got.ChangePoints[0].RunID != "r5" || got.ChangePoints[0].Direction != trend.Worse {
			t.Fatalf("change points %+v, want one, worse, at r5", got.ChangePoints)
		}
	})
	for _, tt := range []struct {
		name, query, field string
		status             int
	}{
		{"ErrTargetRequired", "name=sample", "target", http.StatusBadRequest},
		{"ErrNameRequired", "target=go", "name", http.StatusBadRequest},
		{"ErrUnknownFigure", "name=sample&target=go&figure=p42", "figure", http.StatusBadRequest},
		{"ErrMalformedLabel", "name=sample&target=go&label=main", "label", http.StatusBadRequest},
		{"ErrNoRuns", "name=sample&target=java", "", http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := e.do(t, "GET", "/runs/trend?"+tt.query, "")
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
				t.Fatalf("status %d %s, want %d problem: %s", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, resp.body)
			}
			var problem api.Problem
			if err := json.Unmarshal(resp.body, &problem); err != nil || problem.Field != tt.field {
				t.Errorf("problem names field %q, want %q: %s", problem.Field, tt.field, resp.body)
			}
		})
	}
}
