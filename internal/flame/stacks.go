// Package flame holds call stacks folded the way flamegraph.pl and
// speedscope read them ("root;caller;leaf 42" a line), the frames those
// stacks spend the most samples in, and a flame graph of them drawn as a
// self-contained SVG.
//
// JFR's execution samples (internal/jfr) and Go's CPU profiles
// (internal/goprof) both become Stacks, so that a Java and a Go target are
// drawn and ranked the same way.
package flame

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Stack is a call stack, root first, and how many samples ended in it.
type Stack struct {
	Frames []string
	Count  int64
}

// Stacks are folded stacks: each distinct stack once, sorted by its frames.
// Build them with a Builder or Parse.
type Stacks []Stack

// Builder folds stacks as they come: adding a stack already seen adds to
// its count. The zero value is ready to use.
type Builder struct {
	counts map[string]int64
}

// Add adds count samples of the stack frames, root first. Frame names lose
// the characters the folded format cannot hold (';' and line breaks); an
// empty stack is left out.
func (b *Builder) Add(frames []string, count int64) {
	if len(frames) == 0 || count <= 0 {
		return
	}
	if b.counts == nil {
		b.counts = map[string]int64{}
	}
	clean := make([]string, len(frames))
	for i, f := range frames {
		clean[i] = cleanFrame(f)
	}
	b.counts[strings.Join(clean, ";")] += count
}

// Stacks returns the folded stacks added so far, sorted by their frames.
func (b *Builder) Stacks() Stacks {
	out := make(Stacks, 0, len(b.counts))
	for _, key := range slices.Sorted(maps.Keys(b.counts)) {
		out = append(out, Stack{Frames: strings.Split(key, ";"), Count: b.counts[key]})
	}
	return out
}

// frameReplacer turns the folded format's separators into look-alikes.
var frameReplacer = strings.NewReplacer(";", ":", "\n", " ", "\r", " ")

// cleanFrame makes a frame name safe for the folded format; a name left
// empty becomes "?", so that a stack keeps its depth.
func cleanFrame(f string) string {
	f = strings.TrimSpace(frameReplacer.Replace(f))
	if f == "" {
		return "?"
	}
	return f
}

// Total returns the samples of all the stacks.
func (s Stacks) Total() int64 {
	var total int64
	for _, st := range s {
		total += st.Count
	}
	return total
}

// WriteTo writes the stacks in the folded format, one "frame;frame count"
// line each.
func (s Stacks) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	for _, st := range s {
		m, err := fmt.Fprintf(bw, "%s %d\n", strings.Join(st.Frames, ";"), st.Count)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Parse reads stacks in the folded format; lines of the same stack add up.
// A line without a count after its last space is an error naming it.
func Parse(r io.Reader) (Stacks, error) {
	var b Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024) // deep stacks make long lines
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		cut := strings.LastIndexByte(text, ' ')
		count, err := strconv.ParseInt(text[cut+1:], 10, 64)
		if cut <= 0 || err != nil || count < 0 {
			return nil, fmt.Errorf("folded stacks, line %d: want \"frame;frame count\", got %q", line, abbreviate(text, 80))
		}
		b.Add(strings.Split(strings.TrimSpace(text[:cut]), ";"), count)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("folded stacks: %w", err)
	}
	return b.Stacks(), nil
}

// abbreviate cuts s to at most n runes, marking the cut.
func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Top returns the n frames the samples were running in most (self), with
// the samples each was on the stack of (cumulative), most first; ties go
// by cumulative, then name. A frame that recurses counts once per sample.
func (s Stacks) Top(n int) []bench.FrameCount {
	top := slices.DeleteFunc(s.frameCounts(), func(c bench.FrameCount) bool { return c.Self == 0 })
	slices.SortFunc(top, func(a, b bench.FrameCount) int {
		return cmp.Or(cmp.Compare(b.Self, a.Self), cmp.Compare(b.Cumulative, a.Cumulative), cmp.Compare(a.Frame, b.Frame))
	})
	return top[:min(n, len(top))]
}

// TopCumulative returns the n frames the samples were under most
// (cumulative), callers included, most first; ties go by self, then name.
func (s Stacks) TopCumulative(n int) []bench.FrameCount {
	top := s.frameCounts()
	slices.SortFunc(top, func(a, b bench.FrameCount) int {
		return cmp.Or(cmp.Compare(b.Cumulative, a.Cumulative), cmp.Compare(b.Self, a.Self), cmp.Compare(a.Frame, b.Frame))
	})
	return top[:min(n, len(top))]
}

// TopInnermost returns the n frames that were the innermost of their
// stack's frames own says are the service's (its own code, not the
// runtime's or a library's), most samples first: where the service's own
// code was when the samples fell, below the filters and handlers that
// call it. Self counts those samples; Cumulative is the frame's own.
func (s Stacks) TopInnermost(n int, own func(frame string) bool) []bench.FrameCount {
	cumulative := map[string]int64{}
	for _, c := range s.frameCounts() {
		cumulative[c.Frame] = c.Cumulative
	}
	var b Builder
	for _, st := range s {
		for i := len(st.Frames) - 1; i >= 0; i-- {
			if own(st.Frames[i]) {
				b.Add(st.Frames[i:i+1], st.Count)
				break
			}
		}
	}
	top := b.Stacks().Top(n)
	for i := range top {
		top[i].Cumulative = cumulative[top[i].Frame]
	}
	return top
}

// frameCounts returns every frame's self and cumulative samples, in no
// order.
func (s Stacks) frameCounts() []bench.FrameCount {
	counts := map[string]*bench.FrameCount{}
	frame := func(name string) *bench.FrameCount {
		if counts[name] == nil {
			counts[name] = &bench.FrameCount{Frame: name}
		}
		return counts[name]
	}
	for _, st := range s {
		frame(st.Frames[len(st.Frames)-1]).Self += st.Count
		seen := map[string]bool{}
		for _, f := range st.Frames {
			if !seen[f] {
				seen[f] = true
				frame(f).Cumulative += st.Count
			}
		}
	}
	out := make([]bench.FrameCount, 0, len(counts))
	for _, c := range counts {
		out = append(out, *c)
	}
	return out
}
