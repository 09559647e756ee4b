package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/httpapi"
)

// sseEvent is one block of an event stream: an event, or a comment.
type sseEvent struct {
	id, event, data, comment string
}

// readEvent reads the next block of the stream.
func readEvent(br *bufio.Reader) (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return ev, nil
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			ev.comment = value
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			ev.data += value
		}
	}
}

// mustRead reads the next block and checks its id and name.
func mustRead(t *testing.T, br *bufio.Reader, id, event string) sseEvent {
	t.Helper()
	ev, err := readEvent(br)
	if err != nil {
		t.Fatalf("reading event %s %q: %v", id, event, err)
	}
	if ev.id != id || ev.event != event {
		t.Fatalf("event = id %q %q, want id %q %q (data %s)", ev.id, ev.event, id, event, ev.data)
	}
	return ev
}

func runOf(t *testing.T, ev sseEvent) bench.Run {
	t.Helper()
	var run bench.Run
	if err := json.Unmarshal([]byte(ev.data), &run); err != nil {
		t.Fatalf("decoding run from %q: %v", ev.data, err)
	}
	return run
}

// openStream opens GET /runs/{id}/events and checks that it is a stream.
func openStream(t *testing.T, ctx context.Context, e *env, id string) *bufio.Reader {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/runs/"+id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("GET events: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET events = %d %q, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return bufio.NewReader(resp.Body)
}

// runHolder is a store's view of one run, changed by the test as the run goes on.
type runHolder struct {
	mu  sync.Mutex
	run *bench.Run
}

func (h *runHolder) set(r *bench.Run) { h.mu.Lock(); h.run = r; h.mu.Unlock() }

func (h *runHolder) find(_ context.Context, id string) (*bench.Run, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.run == nil || h.run.ID != id {
		return nil, notFound(id)
	}
	return h.run, nil
}

// TestEventsLateJoiner: a client joining a running run gets its state
// first, then the run's events as they come, then the final state.
func TestEventsLateJoiner(t *testing.T) {
	e := newEnv(t)
	running := sampleRun("r1", bench.RunRunning)
	holder := &runHolder{run: running}
	e.store.FindRunByIDFn = holder.find
	events := make(chan bench.Event)
	e.runs.SubscribeFn = func(_ ctxT, id string) (<-chan bench.Event, error) { return events, nil }

	br := openStream(t, t.Context(), e, "r1")
	if run := runOf(t, mustRead(t, br, "1", "state")); run.ID != "r1" || run.Status != bench.RunRunning || len(run.Targets) != 1 {
		t.Fatalf("state = %s %s with %d targets, want r1 running with 1", run.ID, run.Status, len(run.Targets))
	}

	at := time.Date(2026, 5, 1, 12, 0, 5, 0, time.UTC)
	sent := []bench.Event{
		{Type: bench.EventTarget, RunID: "r1", Time: at, Target: "go", TargetStatus: bench.TargetRunning, Phase: "attack"},
		{Type: bench.EventSecond, RunID: "r1", Time: at, Target: "go", Second: &bench.Bucket{Second: 3, Stage: 0,
			Stats: bench.Stats{Requests: 100, Successes: 100, Throughput: 100, Latency: bench.Latency{P99: 4.5}}}},
	}
	for i, want := range sent {
		events <- want
		ev := mustRead(t, br, []string{"2", "3"}[i], string(want.Type))
		var got bench.Event
		if err := json.Unmarshal([]byte(ev.data), &got); err != nil {
			t.Fatalf("decoding event: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("event %d = %+v, want %+v", i, got, want)
		}
	}

	holder.set(sampleRun("r1", bench.RunSucceeded))
	close(events)
	if run := runOf(t, mustRead(t, br, "4", "end")); run.Status != bench.RunSucceeded {
		t.Errorf("final state = %s, want succeeded", run.Status)
	}
	if _, err := readEvent(br); err != io.EOF {
		t.Errorf("after end: %v, want the stream closed", err)
	}
}

// TestEventsFinishedRun: a finished run's stream is its state and the end.
func TestEventsFinishedRun(t *testing.T) {
	for _, tt := range []struct {
		name      string
		subscribe func(ctxT, string) (<-chan bench.Event, error)
	}{
		{"QueueForgotIt", func(_ ctxT, id string) (<-chan bench.Event, error) { return nil, notFound(id) }},
		{"QueueClosedChannel", func(ctxT, string) (<-chan bench.Event, error) {
			ch := make(chan bench.Event)
			close(ch)
			return ch, nil
		}},
		{"QueueStillOpen", func(ctxT, string) (<-chan bench.Event, error) { return make(chan bench.Event), nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			holder := &runHolder{run: sampleRun("r1", bench.RunFailed)}
			e.store.FindRunByIDFn = holder.find
			e.runs.SubscribeFn = tt.subscribe
			br := openStream(t, t.Context(), e, "r1")
			if run := runOf(t, mustRead(t, br, "1", "state")); run.Status != bench.RunFailed {
				t.Errorf("state = %s, want failed", run.Status)
			}
			if run := runOf(t, mustRead(t, br, "2", "end")); run.Status != bench.RunFailed {
				t.Errorf("end = %s, want failed", run.Status)
			}
			if _, err := readEvent(br); err != io.EOF {
				t.Errorf("after end: %v, want the stream closed", err)
			}
		})
	}
}

func TestEventsErrors(t *testing.T) {
	t.Run("UnknownRun", func(t *testing.T) {
		e := newEnv(t)
		e.runs.SubscribeFn = func(_ ctxT, id string) (<-chan bench.Event, error) { return nil, notFound(id) }
		e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) { return nil, notFound(id) }
		req := e.newRequest(t, "GET", "/runs/nope/events", "")
		resp := e.send(t, req)
		problem(t, resp, http.StatusNotFound)
		conforms(t, req, resp)
	})
	t.Run("SubscribeFails", func(t *testing.T) {
		e := newEnv(t)
		e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return nil, errors.New("broken") }
		problem(t, e.do(t, "GET", "/runs/r1/events", ""), http.StatusInternalServerError)
	})
}

// TestEventsClientLeaves: closing the connection cancels the subscription.
func TestEventsClientLeaves(t *testing.T) {
	e := newEnv(t)
	e.store.FindRunByIDFn = (&runHolder{run: sampleRun("r1", bench.RunRunning)}).find
	subscribed := make(chan context.Context, 1)
	e.runs.SubscribeFn = func(ctx ctxT, _ string) (<-chan bench.Event, error) {
		subscribed <- ctx
		return make(chan bench.Event), nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	br := openStream(t, ctx, e, "r1")
	mustRead(t, br, "1", "state")
	cancel()
	select {
	case <-(<-subscribed).Done():
	case <-time.After(5 * time.Second):
		t.Fatal("subscription still live 5s after the client left")
	}
}

// TestEventsKeepAlive: an idle stream gets comments.
func TestEventsKeepAlive(t *testing.T) {
	e := newEnv(t, func(c *httpapi.Config) { c.KeepAlive = 10 * time.Millisecond })
	e.store.FindRunByIDFn = (&runHolder{run: sampleRun("r1", bench.RunQueued)}).find
	e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return make(chan bench.Event), nil }
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	br := openStream(t, ctx, e, "r1")
	mustRead(t, br, "1", "state")
	ev, err := readEvent(br)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if ev.comment != "keep-alive" || ev.event != "" {
		t.Errorf("got %+v, want a keep-alive comment", ev)
	}
}

// TestEventsLaggingReaderResyncs: when the queue cuts off a subscriber that
// fell behind, the run still running, the stream subscribes again and sends
// the state anew instead of ending; a subscription that keeps ending at
// once gives up after a few tries with the run as it stands.
func TestEventsLaggingReaderResyncs(t *testing.T) {
	t.Run("Resync", func(t *testing.T) {
		e := newEnv(t)
		holder := &runHolder{run: sampleRun("r1", bench.RunRunning)}
		e.store.FindRunByIDFn = holder.find
		first, second := make(chan bench.Event), make(chan bench.Event)
		var subscriptions int
		var mu sync.Mutex
		e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) {
			mu.Lock()
			defer mu.Unlock()
			subscriptions++
			if subscriptions == 1 {
				return first, nil
			}
			return second, nil
		}
		br := openStream(t, t.Context(), e, "r1")
		mustRead(t, br, "1", "state")
		close(first) // cut off, the run still running
		if run := runOf(t, mustRead(t, br, "2", "state")); run.Status != bench.RunRunning {
			t.Errorf("state after resync = %s, want running", run.Status)
		}
		second <- bench.Event{Type: bench.EventRun, RunID: "r1", RunStatus: bench.RunRunning}
		mustRead(t, br, "3", "run")
		holder.set(sampleRun("r1", bench.RunSucceeded))
		close(second)
		if run := runOf(t, mustRead(t, br, "4", "end")); run.Status != bench.RunSucceeded {
			t.Errorf("end = %s, want succeeded", run.Status)
		}
	})
	t.Run("GivesUp", func(t *testing.T) {
		e := newEnv(t)
		e.store.FindRunByIDFn = (&runHolder{run: sampleRun("r1", bench.RunRunning)}).find
		closed := make(chan bench.Event)
		close(closed)
		e.runs.SubscribeFn = func(ctxT, string) (<-chan bench.Event, error) { return closed, nil }
		br := openStream(t, t.Context(), e, "r1")
		for i := 1; i <= 4; i++ {
			mustRead(t, br, strconv.Itoa(i), "state")
		}
		if run := runOf(t, mustRead(t, br, "5", "end")); run.Status != bench.RunRunning {
			t.Errorf("end = %s, want the run as it stands", run.Status)
		}
	})
}
