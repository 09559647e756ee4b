package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
)

func TestProblemsBecomeDomainErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		code   string
		field  string
		msg    string
	}{
		// The daemon's problem documents keep their detail and field.
		{400, `{"status":400,"detail":"unknown target \"nope\"","field":"targets[0]"}`, bench.EINVALID, "targets[0]", `unknown target "nope"`},
		{404, `{"status":404,"detail":"run \"x\" not found"}`, bench.ENOTFOUND, "", `run "x" not found`},
		{409, `{"status":409,"detail":"run r1 already succeeded"}`, bench.ECONFLICT, "", "already succeeded"},
		{413, `{"status":413,"detail":"body over 1 MiB"}`, bench.ETOOLARGE, "", "over 1 MiB"},
		{503, `{"status":503,"detail":"the run queue is full"}`, bench.EUNAVAILABLE, "", "queue is full"},
		// Something that is not a problem document still says what happened.
		{502, `<html>bad gateway</html>`, bench.EINTERNAL, "", "502 Bad Gateway"},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(tt.status)
			fmt.Fprint(w, tt.body)
		}))
		_, err := client.New(srv.URL).FindRunByID(context.Background(), "x")
		srv.Close()
		var be *bench.Error
		if !asError(err, &be) {
			t.Errorf("%d: error %v is not a *bench.Error", tt.status, err)
			continue
		}
		if be.Code != tt.code || be.Field != tt.field || !strings.Contains(be.Message, tt.msg) {
			t.Errorf("%d: got %+v, want code %s field %q message containing %q", tt.status, be, tt.code, tt.field, tt.msg)
		}
	}
}

func TestUnreachableDaemonIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	_, _, err := client.New(url).FindRunSummaries(context.Background(), bench.RunFilter{})
	if bench.ErrorCode(err) != bench.EUNAVAILABLE || !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("got %v, want an unavailable error saying the daemon does not answer", err)
	}
}

func TestFindRunSummariesSendsTheFilter(t *testing.T) {
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		fmt.Fprint(w, `{"runs":[{"id":"r2","status":"succeeded"}],"nextCursor":"abc"}`)
	}))
	defer srv.Close()
	since := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	runs, next, err := client.New(srv.URL).FindRunSummaries(context.Background(), bench.RunFilter{
		Status: []bench.RunStatus{bench.RunFailed, bench.RunCanceled}, Target: "go", Name: "nightly",
		Since: &since, Limit: 5, Cursor: "xyz",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != "r2" || next != "abc" {
		t.Errorf("got %d runs, cursor %q", len(runs), next)
	}
	want := "cursor=xyz&limit=5&name=nightly&since=2026-11-01T00%3A00%3A00Z&status=failed&status=canceled&target=go"
	if query != want {
		t.Errorf("query %q\nwant  %q", query, want)
	}
}

func TestEventsReadsTheStream(t *testing.T) {
	stream := ": keep-alive\n\n" +
		"id: 1\nevent: state\ndata: {\"id\":\"r1\",\"status\":\"running\"}\n\n" +
		"id: 2\nevent: second\ndata: {\"type\":\"second\",\"runId\":\"r1\",\"target\":\"go\",\"second\":{\"second\":3,\"stage\":0,\"stats\":{\"requests\":50}}}\n\n" +
		"id: 3\nevent: end\ndata: {\"id\":\"r1\",\"status\":\"succeeded\"}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/runs/r1/events" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, stream)
	}))
	defer srv.Close()
	var names []string
	var second bench.Event
	var final *bench.Run
	err := client.New(srv.URL).Events(context.Background(), "r1", func(m client.Message) error {
		names = append(names, m.Event)
		switch m.Event {
		case "second":
			ev, err := m.AsEvent()
			second = ev
			return err
		case "end":
			run, err := m.AsRun()
			final = run
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "state,second,end" {
		t.Errorf("events %s, want state,second,end (keep-alives skipped)", got)
	}
	if second.Second == nil || second.Second.Stats.Requests != 50 || second.Target != "go" {
		t.Errorf("second event decoded as %+v", second)
	}
	if final == nil || final.Status != bench.RunSucceeded {
		t.Errorf("final run %+v, want succeeded", final)
	}
}

// TestToken checks that a client with a token sends it on every request,
// event streams included, and that one without sends none.
func TestToken(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		if strings.HasSuffix(r.URL.Path, "/events") {
			w.Header().Set("Content-Type", "text/event-stream")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"runs":[]}`)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		c     *client.Client
		wants string
	}{
		{"WithToken", client.New(srv.URL, client.WithToken("tb-0123456789abcdef")), "Bearer tb-0123456789abcdef"},
		{"Without", client.New(srv.URL), ""},
		{"EmptyToken", client.New(srv.URL, client.WithToken("")), ""},
	} {
		got = nil
		_, _, _ = tt.c.FindRunSummaries(ctx, bench.RunFilter{})
		_ = tt.c.Events(ctx, "r1", func(client.Message) error { return nil })
		if len(got) != 2 || got[0] != tt.wants || got[1] != tt.wants {
			t.Errorf("%s: Authorization sent %q, want %q twice", tt.name, got, tt.wants)
		}
	}
}

// TestUnauthorizedSaysWhereTheTokenGoes checks the hint a 401 gets.
func TestUnauthorizedSaysWhereTheTokenGoes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"status":401,"detail":"this daemon requires a token","field":"Authorization"}`)
	}))
	t.Cleanup(srv.Close)
	_, err := client.New(srv.URL).FindRunByID(context.Background(), "r1")
	if err == nil || !strings.Contains(err.Error(), "requires a token") || !strings.Contains(err.Error(), "THREADBENCH_TOKEN") {
		t.Errorf("error %v, want the daemon's detail and where the CLI takes its token from", err)
	}
}
