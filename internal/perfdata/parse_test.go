package perfdata_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/perfdata"
)

// captures are the perf data files in testdata, each with the counters
// jstat -snap read from it (see testdata/README.md).
var captures = []string{"jdk17-g1", "jdk21-g1", "jdk25-g1", "jdk25-serial", "jdk25-parallel", "jdk25-z", "jdk25-shenandoah"}

// TestParse_MatchesJstat checks every counter of real files against what
// the JDK's own reader made of them.
func TestParse_MatchesJstat(t *testing.T) {
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			got := parseCapture(t, name)
			want := readJstat(t, filepath.Join("testdata", name+".jstat"))
			for counter, value := range want {
				if text := formatCounter(got, counter); text != value {
					t.Errorf("%s = %s, jstat read %s", counter, text, value)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d counters, jstat read %d", len(got), len(want))
			}
		})
	}
}

// TestParse_Units checks the units kept with the values, which turn ticks
// into seconds.
func TestParse_Units(t *testing.T) {
	c := parseCapture(t, "jdk25-g1")
	tests := []struct {
		name string
		want perfdata.Unit
	}{
		{"sun.os.hrt.frequency", perfdata.UnitHertz},
		{"java.ci.totalTime", perfdata.UnitTicks},
		{"sun.gc.generation.0.capacity", perfdata.UnitBytes},
		{"sun.gc.collector.0.invocations", perfdata.UnitEvents},
		{"java.threads.live", perfdata.UnitNone},
		{"sun.gc.policy.name", perfdata.UnitString},
	}
	for _, tt := range tests {
		if got := c[tt.name].Unit; got != tt.want {
			t.Errorf("%s is in %s, want %s", tt.name, got, tt.want)
		}
	}
	if got, want := c["java.threads.live"].Variability, perfdata.Variable; got != want {
		t.Errorf("java.threads.live variability %d, want %d", got, want)
	}
	if got, ok := c.Seconds("java.ci.totalTime"); !ok || got != 0.554111172 {
		t.Errorf("Seconds(java.ci.totalTime) = %v, %v; want 0.554111172, true", got, ok)
	}
}

// TestCounters_Accessors checks that a counter is read only as what it is.
func TestCounters_Accessors(t *testing.T) {
	c := perfdata.Counters{
		"ticks": {Long: 500, Unit: perfdata.UnitTicks},
		"count": {Long: 3, Unit: perfdata.UnitEvents},
		"text":  {Text: "G1", Unit: perfdata.UnitString},
	}
	if _, ok := c.Seconds("ticks"); ok {
		t.Error("Seconds without sun.os.hrt.frequency gave a value")
	}
	c[perfdata.FrequencyName] = perfdata.Counter{Long: 1000, Unit: perfdata.UnitHertz}
	if got, ok := c.Seconds("ticks"); !ok || got != 0.5 {
		t.Errorf("Seconds(ticks) = %v, %v; want 0.5, true", got, ok)
	}
	if _, ok := c.Seconds("count"); ok {
		t.Error("Seconds of a counter in events gave a value")
	}
	if _, ok := c.Long("text"); ok {
		t.Error("Long of a text counter gave a value")
	}
	if _, ok := c.Text("count"); ok {
		t.Error("Text of a number gave a value")
	}
	if _, ok := c.Long("missing"); ok {
		t.Error("Long of a missing counter gave a value")
	}
}

// parseCapture parses testdata/<name>.hsperfdata.
func parseCapture(t *testing.T, name string) perfdata.Counters {
	t.Helper()
	c, err := perfdata.ReadFile(filepath.Join("testdata", name+".hsperfdata"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readCapture returns the bytes of testdata/<name>.hsperfdata.
func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".hsperfdata"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readJstat reads jstat -snap's name=value lines, leaving out the
// sun.perfdata.* counters jstat makes up from the prologue.
func readJstat(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counters := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		name, value, ok := strings.Cut(lines.Text(), "=")
		if ok && !strings.HasPrefix(name, "sun.perfdata.") {
			counters[name] = value
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return counters
}

// formatCounter writes a counter as jstat -snap does: text quoted.
func formatCounter(c perfdata.Counters, name string) string {
	if text, ok := c.Text(name); ok {
		return `"` + text + `"`
	}
	if v, ok := c.Long(name); ok {
		return strconv.FormatInt(v, 10)
	}
	return "(missing)"
}

// TestParse_Errors checks that damaged files are refused with the error
// that says what is wrong, never parsed into made-up counters.
func TestParse_Errors(t *testing.T) {
	real := readCapture(t, "jdk25-g1")
	used := int(binary.LittleEndian.Uint32(real[8:]))
	entries := binary.LittleEndian.Uint32(real[28:])
	const firstEntry = 32
	tests := []struct {
		name  string
		bytes []byte
		want  error
	}{
		{"empty", nil, perfdata.ErrTruncated},
		{"shorter than the prologue", real[:31], perfdata.ErrTruncated},
		// Cut before the end of the entries the prologue announces.
		{"cut in the entries", real[:used-1], perfdata.ErrTruncated},
		{"a JFR file", patched(real, 0, []byte("FLR\x00")), perfdata.ErrMagic},
		{"magic in the wrong order", patched(real, 0, []byte{0xc0, 0xc0, 0xfe, 0xca}), perfdata.ErrMagic},
		{"version 1", patched(real, 5, []byte{1}), perfdata.ErrVersion},
		{"version 3", patched(real, 5, []byte{3}), perfdata.ErrVersion},
		{"unknown byte order", patched(real, 4, []byte{2}), perfdata.ErrCorrupt},
		{"JVM still starting", patched(real, 7, []byte{0}), perfdata.ErrNotReady},
		{"used inside the prologue", patched(real, 8, le32(16)), perfdata.ErrCorrupt},
		{"first entry past the used bytes", patched(real, 24, le32(uint32(used+8))), perfdata.ErrCorrupt},
		{"first entry inside the prologue", patched(real, 24, le32(8)), perfdata.ErrCorrupt},
		{"negative entry count", patched(real, 28, le32(0xffffffff)), perfdata.ErrCorrupt},
		// An entry whose header would end past the used bytes.
		{"entry header cut", patched(patched(real, 8, le32(uint32(used+8))), 28, le32(entries+1)), perfdata.ErrCorrupt},
		{"entry longer than the used bytes", patched(real, firstEntry, le32(uint32(used))), perfdata.ErrCorrupt},
		{"entry shorter than its header", patched(real, firstEntry, le32(12)), perfdata.ErrCorrupt},
		{"name inside the header", patched(real, firstEntry+4, le32(4)), perfdata.ErrCorrupt},
		{"value past the entry", patched(real, firstEntry+16, le32(4096)), perfdata.ErrCorrupt},
		{"long cut by its entry", patched(real, firstEntry+16, le32(52)), perfdata.ErrCorrupt},
		{"empty name", patched(real, firstEntry+20, []byte{0}), perfdata.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := perfdata.Parse(tt.bytes)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse = %d counters, %v; want %v", len(c), err, tt.want)
			}
			if c != nil {
				t.Errorf("Parse returned %d counters with its error", len(c))
			}
		})
	}
}

// TestParse_EntryBeingWritten checks a file read while the JVM adds a
// counter: it has counted the entry before writing its header.
func TestParse_EntryBeingWritten(t *testing.T) {
	real := readCapture(t, "jdk25-g1")
	want, err := perfdata.Parse(real)
	if err != nil {
		t.Fatal(err)
	}
	used := binary.LittleEndian.Uint32(real[8:])
	entries := binary.LittleEndian.Uint32(real[28:])
	counted := patched(patched(real, 8, le32(used+56)), 28, le32(entries+1))
	tests := []struct {
		name  string
		bytes []byte
	}{
		{"used not grown yet", patched(real, 28, le32(entries+1))},
		{"header not started", counted},
		{"length written, offsets not", patched(counted, int(used), le32(56))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := perfdata.Parse(tt.bytes)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%d counters, want the %d written", len(got), len(want))
			}
		})
	}
}

// patched returns a copy of b with at written at offset.
func patched(b []byte, offset int, at []byte) []byte {
	c := append([]byte(nil), b...)
	copy(c[offset:], at)
	return c
}

// le32 returns v as the 4 little-endian bytes of a jint.
func le32(v uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, v)
}

// TestParse_BigEndian checks a file as a big-endian JVM (s390x) writes it,
// and that an entry of a type HotSpot does not write is skipped.
func TestParse_BigEndian(t *testing.T) {
	b := build(binary.BigEndian, []testEntry{
		{name: "sun.os.hrt.frequency", dataType: 'J', long: 1_000_000_000, unit: perfdata.UnitHertz},
		{name: "a.double", dataType: 'D', long: 42, unit: perfdata.UnitNone},
		{name: "java.ci.totalTime", dataType: 'J', long: 2_500_000_000, unit: perfdata.UnitTicks},
		{name: "sun.gc.collector.0.name", dataType: 'B', text: "Serial young collection pauses", unit: perfdata.UnitString},
	})
	c, err := perfdata.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Seconds("java.ci.totalTime"); !ok || got != 2.5 {
		t.Errorf("java.ci.totalTime = %v s, %v; want 2.5", got, ok)
	}
	if got, want := formatCounter(c, "sun.gc.collector.0.name"), `"Serial young collection pauses"`; got != want {
		t.Errorf("collector name %s, want %s", got, want)
	}
	if _, ok := c["a.double"]; ok || len(c) != 3 {
		t.Errorf("counters %v, want the 3 of types J and B", c)
	}
}

// byteOrder is an order build can write with.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// testEntry is a counter build writes.
type testEntry struct {
	name     string
	dataType byte
	long     int64
	text     string
	unit     perfdata.Unit
}

// build returns a perf data file holding entries, laid out as
// PerfData::create_entry lays them out: name, then value, 8-byte aligned.
func build(order byteOrder, entries []testEntry) []byte {
	b := []byte{0xca, 0xfe, 0xc0, 0xc0, 0, 2, 0, 1}
	if order == binary.LittleEndian {
		b[4] = 1
	}
	b = append(b, make([]byte, 24)...)
	for _, e := range entries {
		b = append(b, e.bytes(order)...)
	}
	order.PutUint32(b[8:], uint32(len(b)))
	order.PutUint32(b[24:], 32)
	order.PutUint32(b[28:], uint32(len(entries)))
	return b
}

// bytes returns the entry as the JVM writes it.
func (e testEntry) bytes(order byteOrder) []byte {
	value := order.AppendUint64(nil, uint64(e.long))
	vectorLength := 0
	if e.dataType == 'B' {
		value = append([]byte(e.text), 0)
		vectorLength = len(value)
	}
	dataOffset := align8(20 + len(e.name) + 1)
	length := align8(dataOffset + len(value))
	b := order.AppendUint32(nil, uint32(length))
	b = order.AppendUint32(b, 20)
	b = order.AppendUint32(b, uint32(vectorLength))
	b = append(b, e.dataType, 1, byte(e.unit), byte(perfdata.Variable))
	b = order.AppendUint32(b, uint32(dataOffset))
	b = append(b, e.name...)
	b = append(b, make([]byte, dataOffset-len(b))...)
	b = append(b, value...)
	return append(b, make([]byte, length-len(b))...)
}

// align8 rounds n up to a multiple of 8.
func align8(n int) int {
	return (n + 7) &^ 7
}
