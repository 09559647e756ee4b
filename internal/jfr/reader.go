package jfr

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// readerSource is the reader a host JDK runs on a recording: it reads the
// recording whole with the JDK's own jdk.jfr.consumer.RecordingFile and
// writes each distinct stack once, so that stacks are read as deep as
// they were recorded. `jfr print --json` writes some 3 kB a frame, which
// forced Read to cut stacks to fit a budget; the reader writes a few
// bytes an event (a 3.3 MB recording of a Spring Boot service: 0.7 MB of
// output, against 450 MB of JSON at full depth).
//
//go:embed reader/Reader.java
var readerSource []byte

// readerClass is the class the reader's source declares.
const readerClass = "Reader"

// readerProgram is the reader as the host JDK compiles it, once per source
// and JDK, into ~/.cache/threadbench/jfr-reader.
var readerProgram = jdk.Program{Name: "jfr-reader", Sources: map[string][]byte{readerClass + ".java": readerSource}, Main: readerClass}

// readerOptions are the JVM options the reader runs with: the serial
// collector, since a reader keeps little and a 2-CPU host has no threads
// to spare for a parallel one, and no perf data file in /tmp.
var readerOptions = []string{"-XX:+UseSerialGC", "-XX:-UsePerfData"}

// javaReader runs the embedded reader on a host JDK. The source is
// compiled once per source and JDK with that JDK's javac, into a
// directory of the user's cache named by a hash of both
// (~/.cache/threadbench/jfr-reader/25.0.3-<hash>), and each read then
// runs `java -cp <that directory> Reader`. Java's single-file source
// launch (`java Reader.java`) would need no cache, but it compiles the
// source on every read: on a 2-vCPU Xeon it took 2.3-2.9 s a read against
// 0.3-0.8 s for the compiled class, on the same 3.3 MB recording; javac
// takes about 2 s, once.
type javaReader struct {
	jdk jdk.JDK
}

// String says which JDK reads.
func (r *javaReader) String() string { return "the reader on " + r.jdk.String() }

// errNoReader marks a reader that could not be made ready (its source not
// compiled): Read then falls back to `jfr print`.
var errNoReader = errors.New("the recording reader could not be compiled")

// ReadWhole reads the events of Types from the recording at file with the
// host JDK's reader, every event with its whole stack, as deep as the
// recorder kept it (RecorderDepth): nothing is skipped. A tool without a
// host JDK (FuncTool, ImageTool, HostTool) returns an EUNAVAILABLE
// *bench.Error. A recording that cannot be read gives an error quoting
// what the reader said; ctx ending kills the reader.
func (t Tool) ReadWhole(ctx context.Context, file string) (*Recording, error) {
	if t.reader == nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "%s has no host JDK to run the recording reader on", t)
	}
	events, err := t.reader.read(ctx, file, Types)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Events: events, Depths: map[string]int{}, Skipped: map[string]int64{}}
	for _, e := range events {
		rec.Depths[e.Type] = RecorderDepth
	}
	return rec, nil
}

// read runs the reader on file for the given types and decodes its output
// as it comes.
func (r *javaReader) read(ctx context.Context, file string, types []string) ([]Event, error) {
	classes, done, err := readerProgram.Compile(ctx, r.jdk)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoReader, err)
	}
	defer done()
	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	args := append(append(slices.Clone(readerOptions), "-cp", classes, readerClass, file), types...)
	cmd := jdk.Command(runCtx, r.jdk.Tool("java"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// Once ctx ends, the wait for the reader's output ends too.
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("read %s with %s: %w", file, r, err)
	}
	events, decodeErr := DecodeCompact(stdout)
	if decodeErr != nil {
		kill() // a reader whose output makes no sense is not waited for
	} else {
		io.Copy(io.Discard, stdout)
	}
	if err := r.outcome(ctx, file, cmd.Wait(), decodeErr, stderr.String()); err != nil {
		return nil, err
	}
	return events, nil
}

// outcome says how a read ended: ctx's error when it ended first; the
// reader's exit and what it said when it failed on its own (its output
// then ends early, which is no news); else the decoder's error.
func (r *javaReader) outcome(ctx context.Context, file string, waitErr, decodeErr error, stderr string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("read %s with %s: %w", file, r, err)
	}
	var exit *exec.ExitError
	exitedOnItsOwn := errors.As(waitErr, &exit) && exit.ExitCode() > 0
	switch {
	case waitErr != nil && (decodeErr == nil || exitedOnItsOwn):
		return fmt.Errorf("read %s with %s: %w: %s", file, r, waitErr, jdk.Tail(stderr, 5))
	case decodeErr != nil:
		return fmt.Errorf("read %s with %s: %w", file, r, decodeErr)
	}
	return nil
}
