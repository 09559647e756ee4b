package flame_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
)

// sample are the stacks most tests use: a CPU-bound handler under a
// server loop, with a little GC beside it.
func sample() flame.Stacks {
	var b flame.Builder
	b.Add([]string{"main", "serve", "handle", "work", "sha256.block"}, 70)
	b.Add([]string{"main", "serve", "handle", "work"}, 10)
	b.Add([]string{"main", "serve", "handle", "encode"}, 5)
	b.Add([]string{"main", "serve", "handle", "work", "sha256.block"}, 5) // the same stack again
	b.Add([]string{"runtime", "gcBgMarkWorker"}, 10)
	return b.Stacks()
}

func TestBuilderFoldsAndSorts(t *testing.T) {
	got := sample()
	want := flame.Stacks{
		{Frames: []string{"main", "serve", "handle", "encode"}, Count: 5},
		{Frames: []string{"main", "serve", "handle", "work"}, Count: 10},
		{Frames: []string{"main", "serve", "handle", "work", "sha256.block"}, Count: 75},
		{Frames: []string{"runtime", "gcBgMarkWorker"}, Count: 10},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d stacks, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !slices.Equal(got[i].Frames, want[i].Frames) || got[i].Count != want[i].Count {
			t.Errorf("stack %d = %v, want %v", i, got[i], want[i])
		}
	}
	if got, want := got.Total(), int64(100); got != want {
		t.Errorf("Total() = %d, want %d", got, want)
	}
}

func TestBuilderCleansFrames(t *testing.T) {
	var b flame.Builder
	b.Add([]string{"a;b", "line\nbreak", " "}, 1)
	b.Add(nil, 5)              // empty: left out
	b.Add([]string{"x"}, 0)    // no samples: left out
	b.Add([]string{"neg"}, -3) // nonsense: left out
	got := b.Stacks()
	if len(got) != 1 || !slices.Equal(got[0].Frames, []string{"a:b", "line break", "?"}) {
		t.Errorf("Stacks() = %v, want one stack [a:b line break ?]", got)
	}
}

func TestFoldedRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if _, err := sample().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	want := "main;serve;handle;encode 5\nmain;serve;handle;work 10\nmain;serve;handle;work;sha256.block 75\nruntime;gcBgMarkWorker 10\n"
	if got := buf.String(); got != want {
		t.Errorf("folded:\n%s\nwant:\n%s", got, want)
	}
	back, err := flame.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(back, sample(), func(a, b flame.Stack) bool { return a.Count == b.Count && slices.Equal(a.Frames, b.Frames) }) {
		t.Errorf("Parse(WriteTo(s)) = %v, want %v", back, sample())
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     flame.Stacks
		err      string
	}{
		// frames may hold spaces: the count is after the last one
		{name: "OK", in: "a;operator new 3\n\na;b 2\na;b 1\n", want: flame.Stacks{{Frames: []string{"a", "b"}, Count: 3}, {Frames: []string{"a", "operator new"}, Count: 3}}},
		{name: "ErrNoCount", in: "a;b\n", err: "line 1"},
		{name: "ErrOnlyCount", in: "a 1\n42\n", err: "line 2"},
		{name: "ErrNegative", in: "a -1\n", err: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := flame.Parse(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse() error = %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tt.want, func(a, b flame.Stack) bool { return a.Count == b.Count && slices.Equal(a.Frames, b.Frames) }) {
				t.Errorf("Parse() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTop(t *testing.T) {
	got := sample().Top(3)
	want := []bench.FrameCount{
		{Frame: "sha256.block", Self: 75, Cumulative: 75},
		{Frame: "gcBgMarkWorker", Self: 10, Cumulative: 10},
		{Frame: "work", Self: 10, Cumulative: 85},
	}
	// gcBgMarkWorker and work tie on self; work has more cumulative, so it
	// comes first.
	want[1], want[2] = want[2], want[1]
	if !slices.Equal(got, want) {
		t.Errorf("Top(3) = %v, want %v", got, want)
	}
}

func TestTopCumulative(t *testing.T) {
	got := sample().TopCumulative(3)
	// main, serve and handle tie on both counts: by name
	want := []bench.FrameCount{
		{Frame: "handle", Self: 0, Cumulative: 90},
		{Frame: "main", Self: 0, Cumulative: 90},
		{Frame: "serve", Self: 0, Cumulative: 90},
	}
	if !slices.Equal(got, want) {
		t.Errorf("TopCumulative(3) = %v, want %v", got, want)
	}
}

func TestTopInnermost(t *testing.T) {
	own := func(f string) bool { return f == "handle" || f == "work" || f == "serve" }
	got := sample().TopInnermost(5, own)
	// work is innermost in 85 samples, handle in 5 (encode is not own);
	// serve is never innermost, gcBgMarkWorker's stacks hold no own frame
	want := []bench.FrameCount{{Frame: "work", Self: 85, Cumulative: 85}, {Frame: "handle", Self: 5, Cumulative: 90}}
	if !slices.Equal(got, want) {
		t.Errorf("TopInnermost() = %v, want %v", got, want)
	}
}

func TestTopCountsRecursionOnce(t *testing.T) {
	var b flame.Builder
	b.Add([]string{"main", "fib", "fib", "fib"}, 4)
	got := b.Stacks().Top(10)
	want := []bench.FrameCount{{Frame: "fib", Self: 4, Cumulative: 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Top() = %v, want %v", got, want)
	}
}
