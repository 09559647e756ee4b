package perfdata

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The counters FiguresOf reads, as HotSpot 17, 21 and 25 name them.
const (
	nameStarted         = "sun.rt.createVmBeginTime" // milliseconds since the epoch
	nameLiveThreads     = "java.threads.live"
	nameDaemonThreads   = "java.threads.daemon"
	namePeakThreads     = "java.threads.livePeak"
	nameJITTime         = "java.ci.totalTime" // not sun.ci.totalTime: HotSpot has none
	nameCompiles        = "sun.ci.totalCompiles"
	nameLoadedClasses   = "java.cls.loadedClasses"
	nameSharedClasses   = "java.cls.sharedLoadedClasses" // loaded from the CDS archive, not counted in the above
	nameSafepoints      = "sun.rt.safepoints"
	nameSafepointTime   = "sun.rt.safepointTime"
	collectorPrefix     = "sun.gc.collector."
	collectorNameSuffix = ".name"
)

// Every collector (G1, Serial, Parallel, ZGC, Shenandoah) describes the
// heap as generations of spaces. A space's used bytes sum to the heap's;
// a generation's capacity is what it has committed, which is more than its
// spaces' sum with Parallel, whose survivors do not fill their generation.
var (
	spaceUsed          = regexp.MustCompile(`^sun\.gc\.generation\.\d+\.space\.\d+\.used$`)
	generationCapacity = regexp.MustCompile(`^sun\.gc\.generation\.\d+\.capacity$`)
)

// Figures are what threadbench reports of a JVM at one moment. A figure
// whose counters the file lacks is nil (or empty), never zero. For a few
// milliseconds after its file turns accessible, a starting JVM still adds
// counters, the clock's frequency among them: until then its times are
// nil and Started is zero.
type Figures struct {
	Started          time.Time   // when the JVM started; zero if unknown. Tells two JVMs of the same pid apart
	Threads          *int64      // live threads as ThreadMXBean counts them (Micrometer's jvm.threads.live): no virtual, compiler or GC threads
	DaemonThreads    *int64      // live daemon threads
	PeakThreads      *int64      // the most live threads since the JVM started
	HeapUsed         *int64      // bytes in use in every generation
	HeapCommitted    *int64      // bytes committed to every generation
	Collectors       []Collector // by the JVM's number for them, young first
	JITSeconds       *float64    // time compiling since start, summed over compiler threads
	CompiledMethods  *int64      // compilations done since start
	ClassesLoaded    *int64      // classes loaded since start, from the CDS archive too, as jstat -class counts
	Safepoints       *int64      // safepoints reached since start
	SafepointSeconds *float64    // time at safepoints since start
}

// Collector is one of a JVM's collectors, e.g. "G1 young collection
// pauses", with its totals since the JVM started.
type Collector struct {
	Name        string  // sun.gc.collector.N.name
	Collections int64   // its invocations
	Seconds     float64 // time in its pauses
}

// FiguresOf derives Figures from a file's counters.
func FiguresOf(c Counters) Figures {
	return Figures{
		Started:          started(c),
		Threads:          longOf(c, nameLiveThreads),
		DaemonThreads:    longOf(c, nameDaemonThreads),
		PeakThreads:      longOf(c, namePeakThreads),
		HeapUsed:         sumOf(c, spaceUsed),
		HeapCommitted:    sumOf(c, generationCapacity),
		Collectors:       collectors(c),
		JITSeconds:       secondsOf(c, nameJITTime),
		CompiledMethods:  longOf(c, nameCompiles),
		ClassesLoaded:    classesLoaded(c),
		Safepoints:       longOf(c, nameSafepoints),
		SafepointSeconds: secondsOf(c, nameSafepointTime),
	}
}

// GCCollections returns the collections of every collector; false if the
// file describes none.
func (f Figures) GCCollections() (int64, bool) {
	var total int64
	for _, collector := range f.Collectors {
		total += collector.Collections
	}
	return total, len(f.Collectors) > 0
}

// GCSeconds returns the pause time of every collector; false if the file
// describes none.
func (f Figures) GCSeconds() (float64, bool) {
	var total float64
	for _, collector := range f.Collectors {
		total += collector.Seconds
	}
	return total, len(f.Collectors) > 0
}

// started returns when the JVM started, or the zero time.
func started(c Counters) time.Time {
	if ms, ok := c.Long(nameStarted); ok && ms > 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}

// classesLoaded returns the classes loaded, the archived ones included.
func classesLoaded(c Counters) *int64 {
	loaded := longOf(c, nameLoadedClasses)
	if shared, ok := c.Long(nameSharedClasses); ok && loaded != nil {
		*loaded += shared
	}
	return loaded
}

// collectors returns the collectors whose name, invocations and time the
// file has, ordered by their number (which need not run 0, 1, 2: ZGC has
// collectors 0 and 2).
func collectors(c Counters) []Collector {
	var found []Collector
	for _, n := range collectorNumbers(c) {
		prefix := collectorPrefix + strconv.Itoa(n) + "."
		name, hasName := c.Text(prefix + "name")
		invocations, hasCount := c.Long(prefix + "invocations")
		seconds, hasTime := c.Seconds(prefix + "time")
		if hasName && hasCount && hasTime {
			found = append(found, Collector{Name: name, Collections: invocations, Seconds: seconds})
		}
	}
	return found
}

// collectorNumbers returns N of every sun.gc.collector.N.name, ascending.
func collectorNumbers(c Counters) []int {
	var numbers []int
	for name := range c {
		if n, ok := collectorNumber(name); ok {
			numbers = append(numbers, n)
		}
	}
	slices.Sort(numbers)
	return numbers
}

// collectorNumber returns N if name is sun.gc.collector.N.name.
func collectorNumber(name string) (int, bool) {
	middle, ok := strings.CutPrefix(name, collectorPrefix)
	if !ok {
		return 0, false
	}
	middle, ok = strings.CutSuffix(middle, collectorNameSuffix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(middle)
	return n, err == nil
}

// sumOf returns the sum of the numeric counters whose names match, or nil
// if none does.
func sumOf(c Counters, names *regexp.Regexp) *int64 {
	var total *int64
	for name := range c {
		if v, ok := c.Long(name); ok && names.MatchString(name) {
			total = add(total, v)
		}
	}
	return total
}

// add returns total plus v, total being nil before the first value.
func add(total *int64, v int64) *int64 {
	if total == nil {
		return &v
	}
	sum := *total + v
	return &sum
}

// longOf returns a numeric counter, or nil.
func longOf(c Counters, name string) *int64 {
	if v, ok := c.Long(name); ok {
		return &v
	}
	return nil
}

// secondsOf returns a counter in ticks as seconds, or nil.
func secondsOf(c Counters, name string) *float64 {
	if v, ok := c.Seconds(name); ok {
		return &v
	}
	return nil
}
