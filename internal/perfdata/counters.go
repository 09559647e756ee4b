package perfdata

import "fmt"

// FrequencyName is the counter holding how many ticks the JVM's
// high-resolution clock counts per second: every counter in UnitTicks is
// divided by it to give seconds.
const FrequencyName = "sun.os.hrt.frequency"

// Unit is what a counter counts, as the JVM labels it (the dataUnits byte
// of an entry; enum Units in perfData.hpp).
type Unit byte

// The units a JVM labels its counters with.
const (
	UnitNone   Unit = 1 // a plain number
	UnitBytes  Unit = 2
	UnitTicks  Unit = 3 // ticks of the high-resolution clock; see FrequencyName
	UnitEvents Unit = 4
	UnitString Unit = 5 // the counter is text
	UnitHertz  Unit = 6
)

var unitNames = map[Unit]string{UnitNone: "none", UnitBytes: "bytes", UnitTicks: "ticks",
	UnitEvents: "events", UnitString: "string", UnitHertz: "hertz"}

// String returns the unit's name, such as "ticks".
func (u Unit) String() string {
	if name, ok := unitNames[u]; ok {
		return name
	}
	return fmt.Sprintf("unit(%d)", byte(u))
}

// Variability says how a counter changes (the dataVariability byte of an
// entry; enum Variability in perfData.hpp).
type Variability byte

// The variabilities a JVM labels its counters with.
const (
	Constant  Variability = 1 // set once, e.g. a name or a version
	Monotonic Variability = 2 // only grows, e.g. collections or compile time
	Variable  Variability = 3 // goes up and down, e.g. live threads
)

// Counter is one counter of a perf data file.
type Counter struct {
	Long        int64  // the value, unless Unit is UnitString
	Text        string // the value when Unit is UnitString
	Unit        Unit
	Variability Variability
}

// Counters are the counters of one perf data file by name, such as
// "java.threads.live". A name a JVM does not publish is not in the map.
type Counters map[string]Counter

// Long returns the value of a numeric counter; false if there is no such
// counter or it is text.
func (c Counters) Long(name string) (int64, bool) {
	counter, ok := c[name]
	if !ok || counter.Unit == UnitString {
		return 0, false
	}
	return counter.Long, true
}

// Text returns the value of a text counter; false if there is no such
// counter or it is a number.
func (c Counters) Text(name string) (string, bool) {
	counter, ok := c[name]
	if !ok || counter.Unit != UnitString {
		return "", false
	}
	return counter.Text, true
}

// Seconds returns a counter in UnitTicks as seconds; false if there is no
// such counter, it is not in ticks, or the file lacks FrequencyName.
func (c Counters) Seconds(name string) (float64, bool) {
	counter, ok := c[name]
	if !ok || counter.Unit != UnitTicks {
		return 0, false
	}
	perSecond, ok := c.Long(FrequencyName)
	if !ok || perSecond <= 0 {
		return 0, false
	}
	return float64(counter.Long) / float64(perSecond), true
}
