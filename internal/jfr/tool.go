package jfr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets/jdk"
)

// DefaultStackDepth is how many frames of each stack Read prints: the
// recorder's own default depth, so nothing it kept is cut.
const DefaultStackDepth = 64

// Tool is the JDK's `jfr` command, which reads recordings of its own and
// of older JDKs (a JDK 25's reads a JDK 21's).
type Tool struct {
	Path string // the executable
}

// FindTool returns the `jfr` of the host's newest JDK 21 or later (as
// scripts/find-jdk.sh finds one: $JAVA_HOME, then /usr/lib/jvm and the
// javac on PATH). With none it returns an EUNAVAILABLE *bench.Error.
func FindTool() (Tool, error) {
	j, err := jdk.Find()
	if err != nil {
		return Tool{}, err
	}
	path := j.Tool("jfr")
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		return Tool{}, bench.Errorf(bench.EUNAVAILABLE, "%s has no jfr command (%s), so recordings cannot be read on this host", j, path)
	}
	return Tool{Path: path}, nil
}

// Read prints the recording at file with `jfr print --json`, only the
// given event types (Types when none), stacks cut to stackDepth frames
// (DefaultStackDepth when 0), and decodes the output as it comes.
func (t Tool) Read(ctx context.Context, file string, stackDepth int, types ...string) ([]Event, error) {
	if len(types) == 0 {
		types = Types
	}
	if stackDepth <= 0 {
		stackDepth = DefaultStackDepth
	}
	cmd := jdk.Command(ctx, t.Path, "print", "--json", "--stack-depth", strconv.Itoa(stackDepth),
		"--events", strings.Join(types, ","), file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("jfr print: %w", err)
	}
	events, decodeErr := Decode(out)
	if decodeErr != nil {
		_ = cmd.Process.Kill() // it may block writing output nobody reads
	}
	waitErr := cmd.Wait()
	switch {
	case waitErr != nil && (decodeErr == nil || stderr.Len() > 0):
		return nil, fmt.Errorf("jfr print %s: %w: %s", file, waitErr, strings.TrimSpace(stderr.String()))
	case decodeErr != nil:
		return nil, decodeErr
	}
	return events, nil
}

// ErrNoRecording is returned when a container holds no recording: the JVM
// did not start one (its image runs no JVM, or a JVM too old for the
// options) or could not write it.
var ErrNoRecording = errors.New("no recording in the container")
