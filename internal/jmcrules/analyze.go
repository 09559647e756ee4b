package jmcrules

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// javaOptions are the options the program runs with: English texts
// whatever the host's locale (JMC also ships Japanese and Chinese ones),
// no perf data file in /tmp, and the C1 compiler only. A run is over
// before C2's code would pay for compiling it, and C2 competes for the
// CPUs: on a busy 2-CPU host a run took 0.9-1.2 s against 1.5-2.3 s with
// C2 on 0.6-1.7 MB recordings, 0.8 s against 1.8 s on a 3.4 MB one, and
// no longer on a 7.5 MB one (medians of 3-5 runs).
var javaOptions = []string{
	"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
	"-Duser.language=en", "-Duser.country=US", "-Djava.awt.headless=true",
}

// MinMajor is the oldest JDK JMC's jars run on: they are built for Java 17
// (their manifests' Bundle-RequiredExecutionEnvironment).
const MinMajor = 17

// exitUnreadable is the program's exit status when JMC cannot load the
// recording: the caller's input is wrong, not the analysis.
const exitUnreadable = 3

// recordingMagic is how a flight recording begins. JMC would also open one
// compressed with gzip, zip or LZ4; Analyze takes the uncompressed
// recordings the JVM writes only, so that a file that is not one fails
// before a JVM starts, and LZ4's native decoder never runs.
const recordingMagic = "FLR\x00"

// Analyze runs JMC's rules on the recording at path. The first call
// downloads JMC's jars (2.5 MB) and compiles the program that runs them;
// later ones find both in CacheDir. A missing recording is an ENOTFOUND
// *bench.Error, a file that is not a recording (or one JMC cannot read) an
// EINVALID one, an unreachable repository an EUNAVAILABLE one. ctx ending
// kills the JVM.
func (a *Analyzer) Analyze(ctx context.Context, recording string) (*Result, error) {
	start := time.Now()
	if err := checkRecording(recording); err != nil {
		return nil, err
	}
	if a.JDK.Major < MinMajor {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "JMC %s needs a JDK %d or newer to run, not %s", Version, MinMajor, a.JDK)
	}
	classpath, done, err := a.prepare(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := a.run(ctx, classpath, recording)
	if err != nil {
		return nil, err
	}
	res, err := decode(out)
	if err != nil {
		return nil, fmt.Errorf("analyze %s with %s: %w", recording, a.JDK, err)
	}
	res.Version, res.JDK, res.Recording = Version, a.JDK.String(), recording
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// checkRecording says, as a *bench.Error, why the file at path is not a
// flight recording, if it is not one.
func checkRecording(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return bench.Errorf(bench.ENOTFOUND, "no recording at %s", path)
	} else if err != nil {
		return bench.Errorf(bench.EINVALID, "cannot read the recording: %v", err)
	}
	defer f.Close()
	magic := make([]byte, len(recordingMagic))
	if _, err := io.ReadFull(f, magic); err != nil || string(magic) != recordingMagic {
		return bench.Errorf(bench.EINVALID, "%s is not a flight recording (it does not begin with %q)", path, recordingMagic)
	}
	return nil
}

// prepareMu keeps two calls in one process from downloading or compiling
// at once; renames keep two processes from seeing half of either.
var prepareMu sync.Mutex

// prepare returns the class path the program runs with, downloading the
// jars and compiling the program if the cache lacks them, and what to call
// once the run is done with it.
func (a *Analyzer) prepare(ctx context.Context) (classpath string, done func(), err error) {
	prepareMu.Lock()
	defer prepareMu.Unlock()
	cacheDir, done := a.CacheDir, func() {}
	if cacheDir == "" {
		tmp, err := os.MkdirTemp("", "threadbench-jmc-")
		if err != nil {
			return "", nil, err
		}
		cacheDir, done = tmp, func() { os.RemoveAll(tmp) }
	}
	jars, err := fetchAll(ctx, a.client(), cmp.Or(a.Repository, DefaultRepository), jarDir(cacheDir), Artifacts)
	if err == nil {
		classes, compiled, err := program(jars).Compile(ctx, a.JDK)
		if err == nil {
			removeJars := done
			return strings.Join(append([]string{classes}, jars...), string(os.PathListSeparator)), func() { compiled(); removeJars() }, nil
		}
		done()
		return "", nil, fmt.Errorf("the JMC rules runner: %w", err)
	}
	done()
	return "", nil, err
}

// client returns the HTTP client that downloads the jars.
func (a *Analyzer) client() *http.Client {
	if a.Client != nil {
		return a.Client
	}
	return http.DefaultClient
}

// run runs the program on the recording and returns what it wrote.
func (a *Analyzer) run(ctx context.Context, classpath, recording string) ([]byte, error) {
	timeout := cmp.Or(a.RulesTimeout, DefaultRulesTimeout)
	args := append(slices.Clone(javaOptions), "-cp", classpath, programClass,
		recording, strconv.FormatInt(timeout.Milliseconds(), 10))
	cmd := jdk.Command(ctx, a.JDK.Tool("java"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Once ctx ends, the wait for the JVM's output ends too.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("analyze %s: %w", recording, ctx.Err())
	case errors.As(err, &exit) && exit.ExitCode() == exitUnreadable:
		return nil, bench.Errorf(bench.EINVALID, "%s", jdk.Tail(stderr.String(), 1))
	case err != nil:
		return nil, fmt.Errorf("analyze %s with %s: %w: %s", recording, a.JDK, err, jdk.Tail(stderr.String(), 5))
	}
	return stdout.Bytes(), nil
}

// decode reads the program's output: the rules' results and how long
// JMC took, as Result's JSON holds them.
func decode(data []byte) (*Result, error) {
	var res Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("JMC's rules wrote what is not their results: %w", err)
	}
	if len(res.Rules) == 0 {
		return nil, errors.New("JMC's rules gave no results: none registered?")
	}
	for _, r := range res.Rules {
		if err := checkRule(r); err != nil {
			return nil, err
		}
	}
	return &res, nil
}

// severities are the severities JMC grades with.
var severities = []Severity{SeverityOK, SeverityInfo, SeverityWarning, SeverityNA, SeverityIgnore}

// checkRule says what is wrong with one decoded result, if anything: it
// must name its rule, and have a known severity or else an error.
func checkRule(r Rule) error {
	switch {
	case r.ID == "":
		return errors.New("JMC's rules gave a result without a rule id")
	case r.Error != "" && r.Severity == "":
		return nil
	case !slices.Contains(severities, r.Severity):
		return fmt.Errorf("rule %s has severity %q, not one JMC grades with", r.ID, r.Severity)
	}
	return nil
}
