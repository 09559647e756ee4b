package goprof_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/threadbench/threadbench/internal/goprof"
)

// synthetic returns a CPU profile of 10 ms samples: main → handle → work
// (inlined into handle) → sha256.block 6 times, main → handle 3 times,
// and one sample at an address with no symbol.
func synthetic(t *testing.T) []byte {
	t.Helper()
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	mainF, handleF, workF, blockF := fn(1, "main.main"), fn(2, "main.handle"), fn(3, "main.work"), fn(4, "crypto/sha256.block")
	loc := func(id uint64, fns ...*profile.Function) *profile.Location {
		l := &profile.Location{ID: id, Address: 0x1000 * id}
		for _, f := range fns {
			l.Line = append(l.Line, profile.Line{Function: f})
		}
		return l
	}
	lMain, lHandle, lBlock, lBare := loc(1, mainF), loc(2, workF, handleF), loc(3, blockF), loc(4)
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        int64(10 * time.Millisecond),
		TimeNanos:     time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).UnixNano(),
		DurationNanos: int64(time.Second),
		Function:      []*profile.Function{mainF, handleF, workF, blockF},
		Location:      []*profile.Location{lMain, lHandle, lBlock, lBare},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lBlock, lHandle, lMain}, Value: []int64{6, 6e7}},
			{Location: []*profile.Location{lMain}, Value: []int64{3, 3e7}},
			{Location: []*profile.Location{lBare, lMain}, Value: []int64{1, 1e7}},
		},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParse(t *testing.T) {
	p, err := goprof.Parse(synthetic(t))
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples() != 10 || p.Period != 10*time.Millisecond || p.CPUSeconds() != 0.1 || p.Duration != time.Second {
		t.Errorf("samples %d, period %v, CPU %v s, duration %v; want 10, 10ms, 0.1, 1s", p.Samples(), p.Period, p.CPUSeconds(), p.Duration)
	}
	var folded strings.Builder
	p.Stacks().WriteTo(&folded)
	want := "main.main 3\nmain.main;0x4000 1\nmain.main;main.handle;main.work;crypto/sha256.block 6\n"
	if folded.String() != want {
		t.Errorf("folded:\n%s\nwant (inlined work is a frame of its own):\n%s", folded.String(), want)
	}
	top := p.Top(2)
	if top[0].Frame != "crypto/sha256.block" || top[0].Self != 6 || top[1].Frame != "main.main" || top[1].Cumulative != 10 {
		t.Errorf("Top(2) = %v", top)
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := goprof.Parse([]byte("not a profile")); err == nil {
		t.Error("Parse(garbage) succeeded")
	}
	var buf bytes.Buffer
	(&profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}).Write(&buf)
	if _, err := goprof.Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("Parse(heap profile) error = %v, want one saying it counts no samples", err)
	}
}

// spin hashes until stop is set: the function a profile must find.
func spin(stop *atomic.Bool) {
	var sum [32]byte
	for !stop.Load() {
		sum = sha256.Sum256(sum[:])
	}
}

func TestFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var stop atomic.Bool
	go spin(&stop)
	defer stop.Store(true)

	p, raw, err := goprof.Fetch(context.Background(), srv.Client(), srv.URL, 300*time.Millisecond) // asks for 1 s
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || p.Duration < 900*time.Millisecond {
		t.Errorf("raw %d bytes, duration %v; want the bytes and about a second", len(raw), p.Duration)
	}
	if p.Samples() == 0 {
		t.Fatal("no samples while a goroutine spun for a second")
	}
	if !containsFrame(p, "goprof_test.spin") {
		t.Errorf("no sample under spin; top frames: %v", p.Top(20))
	}
}

// containsFrame reports whether a frame whose name ends in suffix is on
// the stacks of most of the samples.
func containsFrame(p *goprof.Profile, suffix string) bool {
	var under int64
	for _, st := range p.Stacks() {
		if slices.ContainsFunc(st.Frames, func(f string) bool { return strings.HasSuffix(f, suffix) }) {
			under += st.Count
		}
	}
	return 2*under >= p.Samples()
}

func TestFetchErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, _, err := goprof.Fetch(context.Background(), srv.Client(), srv.URL, time.Second)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Fetch() from a target without pprof: %v, want a 404", err)
	}
}
