package threaddump

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/jfr"
)

// Samples is what the sampler wrote: its period (the least time between
// two dumps: it waits longer after a dump that cost more than its budget
// allows), the Java version it ran on, its budget (a share of one CPU),
// and each dump it took in order.
type Samples struct {
	Period  time.Duration
	Java    string
	Budget  float64
	Samples []Sample
	// Stopped is what ended the sampling early, as the sampler said it;
	// "" when it ran until its JVM stopped.
	Stopped string
}

// Sample is one dump: when it was taken, how long it took (on the wall
// clock, and of the sampler's CPU where the file says), how many threads
// it listed, those threads grouped by name, stack and state, and how long
// the sampler meant to wait for the next (0 where the file does not say).
type Sample struct {
	At      time.Time
	Cost    time.Duration
	CPU     time.Duration
	Threads int
	Next    time.Duration
	Groups  []Group
}

// Group is threads of one dump with the same stack (innermost frame
// first), kind, state, lock and name (a pool's numbers replaced by '#').
type Group struct {
	Stack   []jfr.Frame
	Virtual bool
	State   string // RUNNABLE, WAITING...; "" where the dump did not say (JDK 21's)
	Blocker string // the class waited on, where the dump said
	Name    string
	Count   int
}

// maxLine bounds one line of the file: a stack of a few hundred frames.
const maxLine = 4 << 20

// Parse reads the sampler's file. A last line cut short (the JVM killed
// mid-write) is left out; any other line that makes no sense is an error
// naming it.
func Parse(r io.Reader) (*Samples, error) {
	p := parser{out: &Samples{}, stacks: map[int][]jfr.Frame{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var pending string
	n := 0
	for sc.Scan() {
		if pending != "" {
			if err := p.line(pending); err != nil {
				return nil, fmt.Errorf("thread samples, line %d: %w", n, err)
			}
		}
		pending = sc.Text()
		n++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("thread samples: %w", err)
	}
	if pending != "" && p.line(pending) != nil {
		p.dropLast() // the last line, cut short
	}
	if p.out.Period <= 0 {
		return nil, fmt.Errorf("thread samples: no header line (P): not the sampler's file")
	}
	return p.out, nil
}

// parser keeps the stacks seen so far, by id.
type parser struct {
	out    *Samples
	stacks map[int][]jfr.Frame
}

// line reads one line of the file.
func (p *parser) line(text string) error {
	kind, rest, _ := strings.Cut(text, "\t")
	fields := strings.Split(rest, "\t")
	switch kind {
	case "P":
		return p.header(fields)
	case "K":
		return p.stack(fields)
	case "S":
		return p.sample(fields)
	case "T":
		return p.group(fields)
	case "E":
		p.out.Stopped = rest
		return nil
	}
	return fmt.Errorf("unknown line %q", short(text))
}

// header reads "P <period ms> <java version>".
func (p *parser) header(f []string) error {
	if len(f) < 2 {
		return fmt.Errorf("header %q: want a period and a version", strings.Join(f, " "))
	}
	ms, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ms <= 0 {
		return fmt.Errorf("header: period %q is not a positive number of ms", f[0])
	}
	p.out.Period, p.out.Java = time.Duration(ms)*time.Millisecond, f[1]
	if len(f) > 2 {
		p.out.Budget, _ = strconv.ParseFloat(f[2], 64)
	}
	return nil
}

// stack reads "K <id> <frame>...".
func (p *parser) stack(f []string) error {
	id, err := strconv.Atoi(f[0])
	if err != nil {
		return fmt.Errorf("stack id %q", f[0])
	}
	frames := make([]jfr.Frame, 0, len(f)-1)
	for _, text := range f[1:] {
		class, method, line := frame(text)
		frames = append(frames, jfr.Frame{Class: class, Method: method, Line: line})
	}
	p.stacks[id] = frames
	return nil
}

// sample reads "S <epoch ms> <cost us> <threads>".
func (p *parser) sample(f []string) error {
	if len(f) < 3 {
		return fmt.Errorf("sample %q: want a time, a cost and a count", strings.Join(f, " "))
	}
	at, err1 := strconv.ParseInt(f[0], 10, 64)
	cost, err2 := strconv.ParseInt(f[1], 10, 64)
	threads, err3 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("sample %q: not numbers", strings.Join(f, " "))
	}
	sample := Sample{At: time.UnixMilli(at), Cost: time.Duration(cost) * time.Microsecond, CPU: time.Duration(cost) * time.Microsecond, Threads: threads}
	if len(f) >= 5 {
		cpu, err1 := strconv.ParseInt(f[3], 10, 64)
		next, err2 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("sample %q: not numbers", strings.Join(f, " "))
		}
		sample.CPU, sample.Next = time.Duration(cpu)*time.Microsecond, time.Duration(next)*time.Millisecond
	}
	p.out.Samples = append(p.out.Samples, sample)
	return nil
}

// group reads "T <stack id> <v|p> <state> <count> <blocker> <name>".
func (p *parser) group(f []string) error {
	if len(p.out.Samples) == 0 {
		return fmt.Errorf("threads before any sample")
	}
	if len(f) < 5 {
		return fmt.Errorf("threads %q: want a stack, a kind, a state, a count and a lock", strings.Join(f, " "))
	}
	id, err := strconv.Atoi(f[0])
	stack, known := p.stacks[id]
	count, err2 := strconv.Atoi(f[3])
	if err != nil || !known || err2 != nil || count <= 0 {
		return fmt.Errorf("threads %q: unknown stack or bad count", strings.Join(f, " "))
	}
	g := Group{Stack: stack, Virtual: f[1] == "v", State: dash(f[2]), Count: count, Blocker: dash(f[4])}
	if len(f) > 5 {
		g.Name = f[5]
	}
	last := &p.out.Samples[len(p.out.Samples)-1]
	last.Groups = append(last.Groups, g)
	return nil
}

// dropLast drops a sample cut short with its last line: one whose
// threads were not all written.
func (p *parser) dropLast() {
	if n := len(p.out.Samples); n > 0 {
		p.out.Samples = p.out.Samples[:n-1]
	}
}

// dash reads "-" as "".
func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// short cuts a line for an error message.
func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Events returns the threads of every sample as events of type
// jfr.TypeThreadSample (see there), in order of time: one per thread
// seen, starting at its sample and lasting until the next (Interval), so
// that a wait's events add up to the thread-seconds it held, and a
// stage's edge cuts them as it cuts JFR's.
func (s *Samples) Events() []jfr.Event {
	var out []jfr.Event
	for i, sample := range s.Samples {
		for _, g := range sample.Groups {
			ev := jfr.Event{Type: jfr.TypeThreadSample, Start: sample.At, Duration: s.Interval(i),
				Thread: jfr.Thread{Name: g.Name, Virtual: g.Virtual}, Stack: g.Stack,
				Fields: map[string]string{"state": g.State, "parkedClass": g.Blocker}}
			for range g.Count {
				out = append(out, ev)
			}
		}
	}
	return out
}

// Interval is the time sample i stands for: until the next sample; the
// last, until the next the sampler meant to take (its JVM stopped first),
// else as long as the one before it, else the period.
func (s *Samples) Interval(i int) time.Duration {
	switch {
	case i+1 < len(s.Samples):
		return s.Samples[i+1].At.Sub(s.Samples[i].At)
	case s.Samples[i].Next > 0:
		return s.Samples[i].Next
	case i > 0:
		return s.Samples[i].At.Sub(s.Samples[i-1].At)
	}
	return s.Period
}

// Cost is the sampling's cost: the dumps' mean time on the wall clock,
// and the share of one CPU's time the sampler used over the time sampled.
func (s *Samples) Cost() (mean time.Duration, share float64) {
	if len(s.Samples) == 0 {
		return 0, 0
	}
	var wall, total, span time.Duration
	for i, sample := range s.Samples {
		wall += sample.Cost
		total += sample.CPU
		span += s.Interval(i)
	}
	mean = wall / time.Duration(len(s.Samples))
	if span <= 0 {
		return mean, 0
	}
	return mean, total.Seconds() / span.Seconds()
}

// VirtualCount is how many virtual threads one dump listed, and how many
// of them were parked: unmounted, their innermost frame the JDK's park
// (VirtualThread.park or parkNanos: waiting for a lock, a pool, an
// answer, or asleep). A pinned virtual thread parks on its carrier,
// deeper in its stack, and is not counted parked: it holds the carrier.
type VirtualCount struct {
	At     time.Time
	Alive  int
	Parked int
}

// unmountFrames are the innermost frames of an unmounted virtual thread.
var unmountFrames = []string{"java.lang.VirtualThread.park", "java.lang.VirtualThread.parkNanos"}

// Virtual is each dump's count of virtual threads, alive and parked, in
// order; nil where the dumps listed none (a JVM before 21, or a service
// on platform threads).
func (s *Samples) Virtual() []VirtualCount {
	var out []VirtualCount
	seen := false
	for _, sample := range s.Samples {
		c := VirtualCount{At: sample.At}
		for _, g := range sample.Groups {
			if !g.Virtual || (jfr.Event{Stack: g.Stack}).ServerLoop() {
				continue // a server's own, as the built-in target's wake-up probe
			}
			c.Alive += g.Count
			if len(g.Stack) > 0 && slices.Contains(unmountFrames, g.Stack[0].Name()) {
				c.Parked += g.Count
			}
		}
		seen = seen || c.Alive > 0
		out = append(out, c)
	}
	if !seen {
		return nil
	}
	return out
}
