package diagnosis

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/flame"
)

// dispatch are the frames of generic dispatch (prefixes of a frame's
// name): the run loops, servlet containers, web frameworks and reflective
// calls every request passes through on its way to the code that does its
// work. They hold most of a stage's CPU samples whatever the work was, so
// the CPU sentence names none of them (heaviestSubtree).
var dispatch = []string{
	// Threads' and executors' run loops, virtual threads' mounting.
	"java.lang.Thread.run", "java.lang.VirtualThread.run", "java.util.concurrent.ThreadPoolExecutor", "java.util.concurrent.ForkJoin",
	"java.util.concurrent.ThreadPerTaskExecutor", "jdk.internal.vm.Continuation", "org.apache.tomcat.util.threads.",
	// Reflection and method handles between a framework and a handler.
	"java.lang.reflect.Method.invoke", "jdk.internal.reflect.", "java.lang.invoke.",
	// Servlet containers: Tomcat's connectors, valves and filter chain,
	// Jetty's and Undertow's handlers, the servlet API.
	"org.apache.coyote.", "org.apache.catalina.", "org.eclipse.jetty.server.", "org.eclipse.jetty.util.thread.", "io.undertow.server.",
	"jakarta.servlet.", "javax.servlet.",
	// Spring's dispatch: the dispatcher servlet, handler adapters and
	// argument resolution, filters, proxies and security's filter chain.
	"org.springframework.web.servlet.", "org.springframework.web.method.", "org.springframework.web.filter.",
	"org.springframework.aop.", "org.springframework.cglib.", "org.springframework.security.web.FilterChainProxy",
	"org.springframework.security.web.ObservationFilterChainDecorator",
	// Go's goroutine entry and net/http's serving of a connection.
	"runtime.goexit", "runtime.main", "main.main", "net/http.(*conn).serve", "net/http.serverHandler.ServeHTTP",
	"net/http.HandlerFunc.ServeHTTP", "net/http.(*ServeMux).ServeHTTP",
}

// isDispatch reports whether a frame is generic dispatch.
func isDispatch(frame string) bool {
	return slices.ContainsFunc(dispatch, func(p string) bool { return strings.HasPrefix(frame, p) })
}

// subtree is the heaviest subtree of a stage's CPU samples: its frame and
// the samples under it, and the frame inside it the samples ran in most
// (self) with its samples.
type subtree struct {
	Frame        string
	Samples      int64
	Hottest      string
	HottestSelf  int64
	StageSamples int64
	// Heavy are all the frames, dispatch left out, on the stack of at
	// least SubtreeShare of the samples, by name: what tries reads.
	Heavy []string
}

// heaviestSubtree returns the deepest frame (from the root side, on
// average over the samples it is in) that is on the stack of at least
// SubtreeShare of the samples and is not generic dispatch, counted across
// every path that reaches it (a resource look-up called from many
// handlers is one subtree); ok is false when none is.
func heaviestSubtree(samples flame.Stacks) (subtree, bool) {
	total := samples.Total()
	if total == 0 {
		return subtree{}, false
	}
	under, depth := map[string]int64{}, map[string]int64{}
	for _, st := range samples {
		seen := map[string]bool{}
		for i, f := range st.Frames {
			if !seen[f] { // a recursion's outermost call
				seen[f] = true
				under[f] += st.Count
				depth[f] += int64(i) * st.Count
			}
		}
	}
	meanDepth := func(f string) float64 { return float64(depth[f]) / float64(under[f]) }
	var candidates []string
	for _, f := range slices.Sorted(maps.Keys(under)) {
		if float64(under[f]) >= SubtreeShare*float64(total) && !isDispatch(f) {
			candidates = append(candidates, f)
		}
	}
	if len(candidates) == 0 {
		return subtree{}, false
	}
	frame := slices.MaxFunc(candidates, func(a, b string) int {
		return cmp.Or(cmp.Compare(meanDepth(a), meanDepth(b)), cmp.Compare(under[b], under[a]), strings.Compare(b, a))
	})
	s := subtree{Frame: frame, Samples: under[frame], StageSamples: total, Heavy: candidates}
	s.Hottest, s.HottestSelf = hottestUnder(samples, frame)
	return s, true
}

// hottestUnder returns the frame the samples under frame ran in most
// (self), and how many they were.
func hottestUnder(samples flame.Stacks, frame string) (string, int64) {
	self := map[string]float64{}
	for _, st := range samples {
		if slices.Contains(st.Frames, frame) {
			self[st.Frames[len(st.Frames)-1]] += float64(st.Count)
		}
	}
	hottest := heaviest(self)
	return hottest, int64(self[hottest])
}
