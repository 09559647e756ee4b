// Package perfdata reads the counters a HotSpot JVM publishes in its perf
// data file (/tmp/hsperfdata_<user>/<pid>, the memory-mapped file jstat
// reads; on unless the JVM runs with -XX:-UsePerfData or
// -XX:+PerfDisableSharedMem) and derives threadbench's figures from them:
// threads, heap, collections, JIT and safepoints. It needs nothing from the
// service: a JVM without a Prometheus endpoint publishes these counters too.
//
// The layout is version 2.0 of perfMemory.hpp, read as
// sun.jvmstat.perfdata.monitor.v2_0 reads it: a 32-byte prologue, then
// entries of a 20-byte header, a NUL-terminated name and the value.
package perfdata

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Pattern matches the perf data files of every JVM on a machine or in a
// container: one directory per user, one file per JVM named by its pid. In
// a container the JVM is usually pid 1: /tmp/hsperfdata_root/1.
const Pattern = "/tmp/hsperfdata_*/*"

// Errors Parse wraps, with the detail of what it found.
var (
	// ErrTruncated is a file shorter than its prologue says it is.
	ErrTruncated = errors.New("perf data file truncated")
	// ErrMagic is a file that does not start with 0xcafec0c0.
	ErrMagic = errors.New("not a HotSpot perf data file")
	// ErrVersion is a layout other than 2.x, the one HotSpot has written since Java 5.
	ErrVersion = errors.New("unsupported perf data version")
	// ErrNotReady is a file whose JVM has not marked it accessible: it is
	// still starting, and the file is worth reading again shortly (as
	// it is when missing, empty, or zeroed: ErrTruncated, ErrMagic).
	ErrNotReady = errors.New("perf data not ready: the JVM is still starting")
	// ErrCorrupt is a file whose offsets or lengths do not hold together.
	ErrCorrupt = errors.New("corrupt perf data file")
)

// The layout's constants, from perfMemory.hpp.
const (
	magic           = 0xcafec0c0
	supportedMajor  = 2
	prologueSize    = 32 // sizeof(PerfDataPrologue)
	entryHeaderSize = 20 // sizeof(PerfDataEntry), without its name and value
	littleEndian    = 1  // PERFDATA_LITTLE_ENDIAN; 0 is big-endian
)

// prologue is what Parse needs of PerfDataPrologue.
type prologue struct {
	order       binary.ByteOrder
	used        int // bytes of the region holding entries, prologue included
	entryOffset int // where the first entry starts
	numEntries  int // how many entries the JVM has allocated
}

// ReadFile reads and parses the perf data file at path.
func ReadFile(path string) (Counters, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse returns the counters of a perf data file's bytes. The bytes may be
// read while the JVM runs: an entry it is still writing ends the list, as
// it does for jstat. It returns an error wrapping ErrTruncated, ErrMagic,
// ErrVersion, ErrNotReady or ErrCorrupt.
func Parse(b []byte) (Counters, error) {
	p, err := readPrologue(b)
	if err != nil {
		return nil, err
	}
	return readEntries(b[:p.used], p)
}

// readPrologue reads and checks the prologue at the start of b.
func readPrologue(b []byte) (prologue, error) {
	if len(b) < prologueSize {
		return prologue{}, fmt.Errorf("%w: %d bytes, fewer than the %d-byte prologue", ErrTruncated, len(b), prologueSize)
	}
	// The JVM writes the magic so that it reads 0xcafec0c0 big-endian
	// whatever its own byte order: it is how a reader finds that order.
	if m := binary.BigEndian.Uint32(b); m != magic {
		return prologue{}, fmt.Errorf("%w: magic %#08x, want %#08x", ErrMagic, m, magic)
	}
	if major, minor := b[5], b[6]; major != supportedMajor {
		return prologue{}, fmt.Errorf("%w: %d.%d, want %d.x", ErrVersion, major, minor, supportedMajor)
	}
	order, err := byteOrder(b[4])
	if err != nil {
		return prologue{}, err
	}
	if accessible := b[7]; accessible == 0 {
		return prologue{}, ErrNotReady
	}
	p := prologue{order: order, used: int32At(b, 8, order), entryOffset: int32At(b, 24, order), numEntries: int32At(b, 28, order)}
	return p, p.check(len(b))
}

// byteOrder returns the order a prologue's byte_order field names.
func byteOrder(field byte) (binary.ByteOrder, error) {
	switch field {
	case littleEndian:
		return binary.LittleEndian, nil
	case 0:
		return binary.BigEndian, nil
	}
	return nil, fmt.Errorf("%w: byte order %d, want 0 or 1", ErrCorrupt, field)
}

// check reports a prologue whose region does not fit in size bytes or
// whose first entry lies outside it.
func (p prologue) check(size int) error {
	if p.used > size {
		return fmt.Errorf("%w: the JVM used %d bytes, the file has %d", ErrTruncated, p.used, size)
	}
	if p.used < prologueSize || p.entryOffset < prologueSize || p.entryOffset > p.used || p.numEntries < 0 {
		return fmt.Errorf("%w: used %d, first entry at %d, %d entries", ErrCorrupt, p.used, p.entryOffset, p.numEntries)
	}
	return nil
}

// readEntries returns the counters of the numEntries entries from
// entryOffset on. Entries of a type threadbench has no use for (HotSpot
// writes none today) are skipped rather than refused, so that a newer JVM
// still gives the counters this package knows.
func readEntries(b []byte, p prologue) (Counters, error) {
	counters := make(Counters, p.numEntries)
	offset := p.entryOffset
	for i := 0; i < p.numEntries; i++ {
		e, err := readEntry(b, offset, p.order)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %d at offset %#x: %v", ErrCorrupt, i, offset, err)
		}
		if e.length == 0 {
			break
		}
		if _, seen := counters[e.name]; e.known && !seen {
			counters[e.name] = e.counter
		}
		offset += e.length
	}
	return counters, nil
}

// int32At returns the signed 32-bit field at offset of b as an int.
func int32At(b []byte, offset int, order binary.ByteOrder) int {
	return int(int32(order.Uint32(b[offset:])))
}
