package jfr_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/jfr"
)

// compactSample is the reader's output for four events, written by hand:
// a park and a monitor enter on a platform thread, a GC with no thread
// and no stack, and an execution sample of a virtual thread with no name
// whose stack was truncated, written first though it started last.
const compactSample = "threadbench-jfr 1\n" +
	"T\t0\t25\t1\t\\N\n" +
	"F\t0\tjava/lang/VirtualThread\trun\t-1\tInterpreted\n" +
	// a JDK 21 hidden class, a JDK 25 one, and names that need escapes
	"F\t1\tPin$$Lambda+0x0000000800140000/1288235781\trun\t-1\tInterpreted\n" +
	"F\t2\tjava.lang.invoke.LambdaForm$DMH/0x0000000072041000\tinvokeStatic\t-1\tInlined\n" +
	"F\t3\tOdd\\tClass\tback\\\\slash\t7\tJIT compiled\n" +
	"S\t0\t1\t3,2,1,0\n" +
	"E\tjdk.ExecutionSample\t1795893713000000300\t0\t0\t0\tstate=STATE_RUNNABLE\n" +
	"T\t1\t31\t0\thttp-nio-8080-exec-1\n" +
	"F\t4\tjdk/internal/misc/Unsafe\tpark\t-1\tNative\n" +
	"F\t5\tcom/zaxxer/hikari/util/ConcurrentBag\tborrow\t146\tInterpreted\n" +
	"S\t1\t0\t4,5\n" +
	"E\tjdk.ThreadPark\t1795893713000000100\t885237296\t1\t1\tparkedClass=java/util/concurrent/SynchronousQueue$TransferStack\n" +
	"E\tjdk.JavaMonitorEnter\t1795893713000000200\t1677308\t1\t1\tmonitorClass=java/lang/Object\tpreviousOwner=main\\tthread\n" +
	"E\tjdk.GarbageCollection\t1795893713000000000\t68340917\t-\t-\tname=G1New\tcause=G1 Evacuation Pause\tsumOfPauses=68340917\n" +
	"end\t4\n"

func TestDecodeCompact(t *testing.T) {
	events, err := jfr.DecodeCompact(strings.NewReader(compactSample))
	if err != nil {
		t.Fatal(err)
	}
	at := func(ns int64) time.Time { return time.Unix(1795893713, ns).UTC() }
	worker := jfr.Thread{Name: "http-nio-8080-exec-1", ID: 31}
	parked := []jfr.Frame{
		{Class: "jdk.internal.misc.Unsafe", Method: "park", Kind: "Native"},
		{Class: "com.zaxxer.hikari.util.ConcurrentBag", Method: "borrow", Line: 146, Kind: "Interpreted"},
	}
	want := []jfr.Event{
		{Type: jfr.TypeGarbageCollection, Start: at(0), Duration: 68340917, Pause: 68340917,
			Fields: map[string]string{"name": "G1New", "cause": "G1 Evacuation Pause"}},
		{Type: jfr.TypeThreadPark, Start: at(100), Duration: 885237296, Thread: worker, Stack: parked,
			Fields: map[string]string{"parkedClass": "java.util.concurrent.SynchronousQueue$TransferStack"}},
		{Type: jfr.TypeMonitorEnter, Start: at(200), Duration: 1677308, Thread: worker, Stack: parked,
			Fields: map[string]string{"monitorClass": "java.lang.Object", "previousOwner": "main\tthread"}},
		{Type: jfr.TypeExecutionSample, Start: at(300), Thread: jfr.Thread{ID: 25, Virtual: true}, Truncated: true,
			Stack: []jfr.Frame{
				{Class: "Odd\tClass", Method: `back\slash`, Line: 7, Kind: "JIT compiled"},
				{Class: "java.lang.invoke.LambdaForm$DMH", Method: "invokeStatic", Kind: "Inlined"},
				{Class: "Pin$$Lambda", Method: "run", Kind: "Interpreted"},
				{Class: "java.lang.VirtualThread", Method: "run", Kind: "Interpreted"},
			},
			Fields: map[string]string{"state": "STATE_RUNNABLE"}},
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(events), len(want), events)
	}
	for i := range want {
		if !reflect.DeepEqual(events[i], want[i]) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, events[i], want[i])
		}
	}
}

func TestDecodeCompactErrors(t *testing.T) {
	const header = "threadbench-jfr 1\n"
	tests := []struct{ name, in, err string }{
		{"ErrEmpty", "", "without its end line"},
		{"ErrNotTheReader", "Error: Could not find or load main class Reader\n", "want the header"},
		{"ErrNewerFormat", "threadbench-jfr 2\nend\t0\n", "want the header"},
		// the reader died before it was done
		{"ErrCut", header + "T\t0\t1\t0\tmain\n", "without its end line"},
		{"ErrCount", header + "E\tjdk.X\t0\t0\t-\t-\nend\t2\n", "end line counts"},
		{"ErrAfterEnd", header + "end\t0\nE\tjdk.X\t0\t0\t-\t-\n", "after the end line"},
		{"ErrUnknownLine", header + "X\t1\n", "unknown line"},
		{"ErrShortEvent", header + "E\tjdk.X\t0\t0\n", "at least 5 values"},
		{"ErrStart", header + "E\tjdk.X\tsoon\t0\t-\t-\n", "start"},
		{"ErrUndefinedThread", header + "E\tjdk.X\t0\t0\t3\t-\n", `thread "3" is not defined`},
		{"ErrUndefinedStack", header + "E\tjdk.X\t0\t0\t-\t0\n", `stack "0" is not defined`},
		{"ErrUndefinedFrame", header + "S\t0\t0\t0\n", `frame "0" is not defined`},
		{"ErrOutOfOrder", header + "F\t1\tA\tm\t1\tInlined\n", "out of order"},
		{"ErrField", header + "E\tjdk.X\t0\t0\t-\t-\tname\n", "not key=value"},
		{"ErrEscape", header + "E\tjdk.X\t0\t0\t-\t-\tname=a\\x\n", "unknown escape"},
		{"ErrPauses", header + "E\tjdk.X\t0\t0\t-\t-\tsumOfPauses=long\n", "sumOfPauses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jfr.DecodeCompact(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("DecodeCompact() error = %v, want one containing %q", err, tt.err)
			}
		})
	}
}
