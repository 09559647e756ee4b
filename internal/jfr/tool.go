package jfr

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// DefaultBudget bounds the JSON one Read has `jfr print` write, in
// bytes. The JSON is large: every frame carries its class's loader,
// package and module, about 3 kB a frame in a Spring Boot service (194 MB
// for 981 events at depth 64), and the tool writes it at about 60 MB/s on
// a 2-CPU host (decoding keeps up at 150 MB/s); 1 GiB is some twenty
// seconds.
const DefaultBudget = 1 << 30

// Estimates of the JSON an event takes: its own fields, and each frame.
const (
	eventBytes = 1200
	frameBytes = 3200
)

// RecorderDepth is the depth of the stacks the recorder keeps (JFR's
// default).
const RecorderDepth = 64

// depths are the stack depths Plan tries for a type, deepest first:
// RecorderDepth, so that nothing the recorder kept is cut; 1 still tells
// which frames the samples fell in (their self counts).
var depths = []int{RecorderDepth, 32, 16, 8, 4, 1}

// stackless are the types whose events carry no stack.
var stackless = map[string]bool{TypeGarbageCollection: true}

// Tool reads recordings with a JDK, which reads those of its own JDK and
// of older ones (a JDK 25's reads a JDK 21's): the host's JDK (FindTool)
// runs the embedded reader (ReadWhole); a `jfr` command alone, the host's
// (HostTool) or one in an image (ImageTool) where the host has no JDK,
// prints the events as JSON.
type Tool struct {
	run  runner
	name string
	// reader runs the embedded reader on the host's JDK; nil without one.
	reader *javaReader
}

// runner runs `jfr args... file`, writing its standard output to stdout.
type runner func(ctx context.Context, stdout io.Writer, file string, args ...string) error

// String says which jfr the tool runs.
func (t Tool) String() string { return t.name }

// FindTool returns the tool of the host's newest JDK 21 or later (as
// scripts/find-jdk.sh finds one: $JAVA_HOME, then /usr/lib/jvm and the
// javac on PATH): its java runs the embedded reader, its `jfr` the rest.
// With none it returns an EUNAVAILABLE *bench.Error; an ImageTool then
// reads recordings in a JDK's image.
func FindTool() (Tool, error) {
	j, err := jdk.Find()
	if err != nil {
		return Tool{}, err
	}
	path := j.Tool("jfr")
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		return Tool{}, bench.Errorf(bench.EUNAVAILABLE, "%s has no jfr command (%s), so recordings cannot be read on this host", j, path)
	}
	t := HostTool(path)
	t.reader = &javaReader{jdk: j}
	return t, nil
}

// FuncTool runs jfr through run, which runs `jfr args... file` and writes
// its standard output to stdout (a target's own image, say); name says
// which jfr it is.
func FuncTool(name string, run func(ctx context.Context, stdout io.Writer, file string, args ...string) error) Tool {
	return Tool{run: run, name: name}
}

// Run runs `jfr args... file`, writing its standard output to stdout.
func (t Tool) Run(ctx context.Context, stdout io.Writer, file string, args ...string) error {
	return t.run(ctx, stdout, file, args...)
}

// HostTool runs the jfr executable at path on the host.
func HostTool(path string) Tool {
	run := func(ctx context.Context, stdout io.Writer, file string, args ...string) error {
		cmd := jdk.Command(ctx, path, append(args, file)...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = stdout, &stderr
		// Once ctx ends, the wait for jfr's output to be copied out ends
		// too: a reader that stopped reading cannot hold it past the
		// collection's deadline.
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	return Tool{run: run, name: path}
}

// Recording is what Read got from a recording: its events, sorted by
// start, the stack depth each type was read with (RecorderDepth, all that
// was recorded, from ReadWhole), and the types left out to keep within
// the budget, with how many events they had (none from ReadWhole).
type Recording struct {
	Events  []Event
	Depths  map[string]int
	Skipped map[string]int64
}

// Read reads the events of Types from the recording at file: whole, with
// the host JDK's reader (ReadWhole), when the tool has one; otherwise, or
// when the reader cannot be compiled, with `jfr print`, stacks as deep as
// budget bytes of JSON allow (DefaultBudget when 0).
func (t Tool) Read(ctx context.Context, file string, budget int64) (*Recording, error) {
	if t.reader != nil {
		rec, err := t.ReadWhole(ctx, file)
		if !errors.Is(err, errNoReader) {
			return rec, err
		}
	}
	return t.readPrinted(ctx, file, budget)
}

// readPrinted reads the events of Types with `jfr print --json`: it counts
// each type's events first (`jfr summary`), plans the depths (Plan) and
// prints each depth's types in one `jfr print --json`.
func (t Tool) readPrinted(ctx context.Context, file string, budget int64) (*Recording, error) {
	counts, err := t.Counts(ctx, file)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Depths: map[string]int{}}
	planned, skipped := Plan(counts, cmp.Or(budget, DefaultBudget))
	rec.Skipped = skipped
	byDepth := map[int][]string{}
	for _, typ := range Types {
		if d, ok := planned[typ]; ok {
			byDepth[d] = append(byDepth[d], typ)
			rec.Depths[typ] = d
		}
	}
	for _, d := range slices.Sorted(maps.Keys(byDepth)) {
		events, err := t.Print(ctx, file, d, byDepth[d]...)
		if err != nil {
			return nil, err
		}
		rec.Events = append(rec.Events, events...)
	}
	slices.SortStableFunc(rec.Events, func(a, b Event) int { return a.Start.Compare(b.Start) })
	return rec, nil
}

// Plan picks, for each type counted (among Types), the deepest stack of
// depths whose JSON still fits in what is left of budget, in Types' order,
// so that the rare and telling events (pinned, blocked) keep their whole
// stacks and the many (samples, parks) are cut first. A type that does not
// fit even at the shallowest depth is skipped, with its count; a type
// with no events is neither.
func Plan(counts map[string]int64, budget int64) (planned map[string]int, skipped map[string]int64) {
	planned, skipped = map[string]int{}, map[string]int64{}
	left := budget
	for _, typ := range Types {
		n := counts[typ]
		if n == 0 {
			continue
		}
		for _, d := range depths {
			cost := n * eventBytes
			if !stackless[typ] {
				cost += n * int64(d) * frameBytes
			}
			if cost <= left {
				planned[typ], left = d, left-cost
				break
			}
		}
		if _, ok := planned[typ]; !ok {
			skipped[typ] = n
		}
	}
	return planned, skipped
}

// Counts returns how many events of each type the recording at file
// holds, from `jfr summary`, which reads no event's contents.
func (t Tool) Counts(ctx context.Context, file string) (map[string]int64, error) {
	var out bytes.Buffer
	if err := t.run(ctx, &out, file, "summary"); err != nil {
		// jfr writes some of its errors to its standard output
		return nil, fmt.Errorf("jfr summary %s (%s): %w %s", file, t, err, jdk.Tail(out.String(), 3))
	}
	return parseSummary(out.String())
}

// parseSummary reads the event table of `jfr summary`'s output: lines of
// " jdk.Type  count  bytes" under a header and a line of '='.
func parseSummary(out string) (map[string]int64, error) {
	counts := map[string]int64{}
	table := false
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "==="):
			table = true
		case table && len(fields) == 3:
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("jfr summary: unexpected line %q", line)
			}
			counts[fields[0]] = n
		}
	}
	if !table {
		return nil, fmt.Errorf("jfr summary: no event table in its output")
	}
	return counts, nil
}

// Print prints the recording's events of the given types with `jfr print
// --json`, stacks cut to stackDepth frames, and decodes the output as it
// comes.
func (t Tool) Print(ctx context.Context, file string, stackDepth int, types ...string) ([]Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	ran := make(chan error, 1)
	go func() {
		err := t.run(ctx, pw, file, "print", "--json", "--stack-depth", strconv.Itoa(stackDepth), "--events", strings.Join(types, ","))
		pw.CloseWithError(err)
		ran <- err
	}()
	// A tool that fails closes the pipe with its error, which the decoder
	// then returns; a decoder that fails stops the tool. A decoder done
	// reads on to the end: it stops at the events' closing bracket, and
	// what follows (the document's closing braces) may come in a write of
	// its own, which nothing would read, so that the tool's copy, and the
	// collection with it, waited forever (clean-clone run 50: 9 minutes,
	// jfr itself long gone).
	events, err := Decode(pr)
	if err != nil {
		cancel()
		pr.CloseWithError(err)
	} else {
		io.Copy(io.Discard, pr)
	}
	if runErr := <-ran; err == nil {
		err = runErr
	}
	if err != nil {
		return nil, fmt.Errorf("jfr print %s (%s): %w", file, t, err)
	}
	return events, nil
}

// ErrNoRecording is returned when a container holds no recording: the JVM
// did not start one (its image runs no JVM, or a JVM too old for the
// options) or could not write it.
var ErrNoRecording = errors.New("no recording in the container")
