package jfr

import (
	"strconv"
	"strings"
	"time"
)

// Event is one recorded event: its type, when it started and how long it
// lasted (0 for an instant, such as an execution sample), the thread it
// happened on, its stack (innermost frame first) and the fields of its
// type that the diagnosis reads, flattened to text in Fields: a class as
// its name ("monitorClass": "java.lang.Object"), a thread as its Java
// name, a string as is. Pause is a GC's total pause time
// (jdk.GarbageCollection's sumOfPauses), which may be shorter than its
// duration for a concurrent collector.
type Event struct {
	Type      string
	Start     time.Time
	Duration  time.Duration
	Thread    Thread
	Stack     []Frame
	Truncated bool // the stack was deeper than recorded or printed
	Pause     time.Duration
	Fields    map[string]string
}

// End returns when the event ended.
func (e Event) End() time.Time { return e.Start.Add(e.Duration) }

// Thread is the thread an event happened on (the sampled thread of an
// execution sample).
type Thread struct {
	Name    string // the Java name; empty for most virtual threads
	ID      int64  // the Java thread id
	Virtual bool
}

// Frame is one frame of a stack: the class (dotted), the method, the line
// (0 when not known) and how it ran ("Interpreted", "JIT compiled",
// "Inlined", "Native").
type Frame struct {
	Class  string
	Method string
	Line   int
	Kind   string
}

// Name returns the frame's method as "class.method", which groups a
// method's lines together (flame graphs, top frames).
func (f Frame) Name() string { return f.Class + "." + f.Method }

// String returns the frame as "class.method:line", or Name() without a
// line.
func (f Frame) String() string {
	if f.Line <= 0 {
		return f.Name()
	}
	return f.Name() + ":" + strconv.Itoa(f.Line)
}

// JDK reports whether the frame is the JDK's own (java.*, javax.*, jdk.*,
// sun.*, com.sun.*): the frames between an event and the code that caused
// it.
func (f Frame) JDK() bool {
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
		if strings.HasPrefix(f.Class, p) {
			return true
		}
	}
	return false
}

// Culprit returns the innermost frame of the stack that is not the JDK's:
// for a pinned virtual thread or a blocked monitor enter, the code that
// held or wanted the monitor, below Thread.sleep, LockSupport.park and
// the virtual-thread machinery. ok is false when every frame is the JDK's.
func (e Event) Culprit() (Frame, bool) {
	for _, f := range e.Stack {
		if !f.JDK() {
			return f, true
		}
	}
	return Frame{}, false
}

// Sleep reports whether a park event is a virtual thread asleep
// (Thread.sleep parks a virtual thread) rather than one waiting for
// something.
func (e Event) Sleep() bool {
	for _, f := range e.Stack {
		if f.Class == "java.lang.VirtualThread" && (f.Method == "sleepNanos" || f.Method == "sleep") {
			return true
		}
		if f.Class == "java.lang.Thread" && strings.HasPrefix(f.Method, "sleep") {
			return true
		}
	}
	return false
}

// Idle reports whether a park event is a thread waiting for work: a
// pool's (ThreadPoolExecutor.getTask, Tomcat's copy of it, scheduled
// executors' included; ForkJoinPool.awaitWork of carriers and common-pool
// workers) or a cleaner's (ReferenceQueue.remove): a thread with nothing
// to do, not one held up.
func (e Event) Idle() bool {
	for _, f := range e.Stack {
		if f.Method == "getTask" && strings.HasSuffix(f.Class, "ThreadPoolExecutor") ||
			f.Method == "awaitWork" && f.Class == "java.util.concurrent.ForkJoinPool" ||
			f.Method == "remove" && f.Class == "java.lang.ref.ReferenceQueue" {
			return true
		}
	}
	return false
}

// serverLoops are the run methods of a server's own threads: Tomcat's
// poller and acceptor, Jetty's selector, and the built-in Java target's
// wake-up probe (targets/CONTRACT.md), which sleeps over and over on no
// request's behalf.
var serverLoops = map[string]bool{
	"org.apache.tomcat.util.net.NioEndpoint$Poller.run":             true,
	"org.apache.tomcat.util.net.Acceptor.run":                       true,
	"org.eclipse.jetty.io.ManagedSelector$SelectorProducer.produce": true,
	"io.threadbench.server.WakeDelay.probe":                         true,
}

// ServerLoop reports whether the event happened on one of the server's own
// I/O threads (a poller, an acceptor), which wait on selectors and locks
// between requests, not on any request's behalf.
func (e Event) ServerLoop() bool {
	for _, f := range e.Stack {
		if serverLoops[f.Name()] {
			return true
		}
	}
	return false
}

// StackNames returns the stack's frames as Name(), root first: a flame
// graph's order.
func (e Event) StackNames() []string {
	names := make([]string, len(e.Stack))
	for i, f := range e.Stack {
		names[len(e.Stack)-1-i] = f.Name()
	}
	return names
}

// StackStrings returns the stack's frames as String(), innermost first.
func (e Event) StackStrings() []string {
	out := make([]string, len(e.Stack))
	for i, f := range e.Stack {
		out[i] = f.String()
	}
	return out
}
