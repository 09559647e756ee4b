// Package jfr records what happens inside a JVM target with the JDK's
// Flight Recorder and reads the recording back: the JVM options that start
// a continuous recording through JAVA_TOOL_OPTIONS (so that any JVM, the
// built-in targets, a jar, a Dockerfile's or an image's, records without a
// change to its command), copying the recording out of the stopped
// target's container, reading it with the JDK's own reader
// (jdk.jfr.consumer, through the embedded reader/Reader.java on a host
// JDK, or `jfr print --json` in a target's image) into typed events, and
// cutting those by the stages' time windows.
//
// A Go JFR parser is not used: none that is served here reads
// jdk.VirtualThreadPinned, and the JDK's own reader follows every format
// change of the JDKs it ships with.
package jfr

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Event types the recording enables with explicit thresholds, and reads.
const (
	TypeVirtualThreadPinned = "jdk.VirtualThreadPinned"
	TypeSubmitFailed        = "jdk.VirtualThreadSubmitFailed"
	TypeMonitorEnter        = "jdk.JavaMonitorEnter"
	TypeThreadPark          = "jdk.ThreadPark"
	TypeExecutionSample     = "jdk.ExecutionSample"
	TypeGarbageCollection   = "jdk.GarbageCollection"
)

// TypeThreadSample is not JFR's: it is a thread seen by threadbench's
// thread sampler (internal/threaddump) in one of its dumps, as an event of
// the sample's period, so that the diagnosis reads it as it reads JFR's.
// It lasts the sampler's period; its Fields hold "state" (RUNNABLE,
// WAITING...; "" where the JDK's dump does not say) and "parkedClass"
// (what it waited on, where said).
const TypeThreadSample = "threadbench.ThreadSample"

// Types are the event types Read asks for, in that order.
var Types = []string{TypeVirtualThreadPinned, TypeSubmitFailed, TypeMonitorEnter, TypeThreadPark, TypeExecutionSample, TypeGarbageCollection}

// Path is where the JVM writes its recording inside the target's
// container: /tmp exists and is writable in the project's JRE images and
// in nearly every other (the JVM itself keeps its perf data there).
const Path = "/tmp/threadbench.jfr"

// Settings are the recording's thresholds and bounds. An event shorter
// than its threshold is not recorded; each threshold also bounds how many
// events a second the recording can take (a thread can end at most one
// event of a type per threshold), which is what keeps the overhead low.
type Settings struct {
	// Pinned is jdk.VirtualThreadPinned's threshold. The JDK's default is
	// 20 ms, which hides the short pins that add up under load; at 1 ms
	// the events are at most 1,000 a second per carrier.
	Pinned time.Duration
	// MonitorEnter is jdk.JavaMonitorEnter's: a thread blocked entering a
	// synchronized block held by another.
	MonitorEnter time.Duration
	// Park is jdk.ThreadPark's: a thread parked in java.util.concurrent (a
	// lock, a pool's queue, a semaphore) or, on a virtual thread, asleep.
	// Higher than the others: every sleeping request of a virtual thread
	// parks, and those are not waits for anything.
	Park time.Duration
	// SamplePeriod is jdk.ExecutionSample's period: how often the JVM
	// samples the threads running Java code. 20 ms is JFR's default
	// configuration's (designed to cost under 1 %), 10 ms its profiling one.
	SamplePeriod time.Duration
	// MaxSize bounds the recording on disk, in bytes; older chunks are
	// dropped beyond it.
	MaxSize int64
	// Path is where the recording is written at exit; Path when empty.
	Path string
}

// DefaultSettings are the settings of every recording unless a run says
// otherwise.
func DefaultSettings() Settings {
	return Settings{
		Pinned:       time.Millisecond,
		MonitorEnter: time.Millisecond,
		Park:         10 * time.Millisecond,
		SamplePeriod: 20 * time.Millisecond,
		MaxSize:      256 << 20,
		Path:         Path,
	}
}

// Validate reports a setting that no recording can use, naming it.
func (s Settings) Validate() error {
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"pinned", s.Pinned}, {"monitorEnter", s.MonitorEnter}, {"park", s.Park}} {
		if d.d < 0 {
			return fmt.Errorf("jfr: %s threshold must not be negative, got %v", d.name, d.d)
		}
	}
	if s.SamplePeriod < time.Millisecond {
		return fmt.Errorf("jfr: sample period must be at least 1ms, got %v", s.SamplePeriod)
	}
	if s.MaxSize < 1<<20 {
		return fmt.Errorf("jfr: max size must be at least 1 MiB, got %d bytes", s.MaxSize)
	}
	if strings.ContainsAny(s.Path, " ,=\t\n") || !strings.HasPrefix(cmp.Or(s.Path, Path), "/") {
		return fmt.Errorf("jfr: path must be absolute with no space, comma or '=', got %q", s.Path)
	}
	return nil
}

// Options returns the JVM options that start the recording: one
// -XX:StartFlightRecording on JFR's default configuration (low overhead,
// GC pauses included) with the thresholds above set explicitly, written
// to the path when the JVM exits (SIGTERM included: `docker stop` lets it
// write), and JFR's start-up lines silenced (they would go to the
// service's standard output).
//
// The event settings use the name#setting=value form JDK 17 introduced;
// every JDK the project runs (21 on) reads it. The values hold no space,
// since JAVA_TOOL_OPTIONS is split on spaces.
func (s Settings) Options() []string {
	rec := []string{
		"settings=default",
		"disk=true",
		"dumponexit=true",
		"filename=" + cmp.Or(s.Path, Path),
		"maxsize=" + strconv.FormatInt(s.MaxSize, 10),
		TypeVirtualThreadPinned + "#enabled=true",
		TypeVirtualThreadPinned + "#threshold=" + millis(s.Pinned),
		TypeVirtualThreadPinned + "#stackTrace=true",
		TypeSubmitFailed + "#enabled=true",
		TypeMonitorEnter + "#enabled=true",
		TypeMonitorEnter + "#threshold=" + millis(s.MonitorEnter),
		TypeThreadPark + "#enabled=true",
		TypeThreadPark + "#threshold=" + millis(s.Park),
		TypeExecutionSample + "#enabled=true",
		TypeExecutionSample + "#period=" + millis(s.SamplePeriod),
		TypeGarbageCollection + "#enabled=true",
	}
	return []string{"-Xlog:jfr+startup=off", "-XX:StartFlightRecording=" + strings.Join(rec, ",")}
}

// millis formats d in whole milliseconds as JFR reads it ("0ms", "20ms"),
// rounding a fraction up so that a threshold never drops below what was
// asked.
func millis(d time.Duration) string {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(ms), 10) + "ms"
}

// ToolOptions returns the JAVA_TOOL_OPTIONS value that starts the
// recording in a container whose image already sets it to imageValue
// (often empty): the image's options first, so that its own settings stay
// in force, then the recording's. Every JVM reads JAVA_TOOL_OPTIONS,
// whatever its command line (unlike JDK_JAVA_OPTIONS, which only the java
// launcher reads), and says so on its standard error ("Picked up
// JAVA_TOOL_OPTIONS: ...").
func (s Settings) ToolOptions(imageValue string) string {
	return strings.TrimSpace(imageValue + " " + strings.Join(s.Options(), " "))
}

// EnvVar is the environment variable the recording's options go in.
const EnvVar = "JAVA_TOOL_OPTIONS"
