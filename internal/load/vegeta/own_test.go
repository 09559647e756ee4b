package vegeta_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/load/vegeta"
)

// TestOwnRequests: a request given by its URI goes out with its method,
// headers and body, from either engine, and is labelled by them.
func TestOwnRequests(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	type seen struct{ method, uri, header, body string }
	var mu sync.Mutex
	got := map[seen]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[seen{r.Method, r.URL.RequestURI(), r.Header.Get("X-Shop"), string(body)}]++
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	order := bench.Request{URI: "/orders?dry=1", Method: "POST", Header: map[string][]string{"X-Shop": {"7"}}, Body: `{"id":1}`, Weight: 1}
	list := bench.Request{URI: "/orders", Weight: 1}
	plan := openPlan(order, list)
	plan.Profile.Stages = plan.Profile.Stages[:1]
	plan.Warmup.Disabled = true
	for name, engine := range map[string]bench.Attacker{"own": load.NewEngine(), "vegeta": vegeta.NewEngine(load.NewEngine())} {
		t.Run(name, func(t *testing.T) {
			mu.Lock()
			clear(got)
			mu.Unlock()
			res, err := engine.Run(context.Background(), srv.URL, plan, bench.Observer{})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if n := got[seen{"POST", "/orders?dry=1", "7", `{"id":1}`}]; n != 100 {
				t.Errorf("%d POSTs with header and body, want 100 (saw %v)", n, got)
			}
			if n := got[seen{"GET", "/orders", "", ""}]; n != 100 {
				t.Errorf("%d GETs, want 100", n)
			}
			if len(res.Requests) != 2 || res.Requests[0].Name != "POST /orders?dry=1" || res.Requests[0].Stats.Successes != 100 {
				t.Errorf("per-request figures %+v", res.Requests)
			}
		})
	}
}
