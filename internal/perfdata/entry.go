package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The data types of PerfDataEntry.data_type that HotSpot writes: a scalar
// jlong, and a byte vector that holds a NUL-terminated string.
const (
	typeLong = 'J'
	typeByte = 'B'
)

// header is PerfDataEntry, the fixed part of an entry. Offsets are from
// the start of the entry.
type header struct {
	length       int // of the whole entry: header, name, padding and value
	nameOffset   int
	vectorLength int // 0 for a scalar
	dataType     byte
	unit         Unit
	variability  Variability
	dataOffset   int
}

// entry is one decoded entry. length 0 marks an entry the JVM is still
// writing; known is false for an entry of a type this package skips.
type entry struct {
	length  int
	name    string
	counter Counter
	known   bool
}

// readEntry decodes the entry at offset of b, b being the region the
// prologue says is used.
func readEntry(b []byte, offset int, order binary.ByteOrder) (entry, error) {
	// The JVM counts an entry (num_entries) as it makes room for it (used),
	// then fills in its header in the zeroed region. A copy taken meanwhile
	// may hold the new count with the old used, or a zero length or data
	// offset: an entry being written, the end of what can be read now.
	if offset == len(b) {
		return entry{}, nil
	}
	if offset%4 != 0 || offset+entryHeaderSize > len(b) {
		return entry{}, fmt.Errorf("no room for an entry header in %d bytes", len(b))
	}
	h := readHeader(b[offset:], order)
	if h.length == 0 || h.dataOffset == 0 {
		return entry{}, nil
	}
	if err := h.check(len(b) - offset); err != nil {
		return entry{}, err
	}
	return h.decode(b[offset:offset+h.length], order)
}

// readHeader reads the fixed part of the entry at the start of b.
func readHeader(b []byte, order binary.ByteOrder) header {
	return header{
		length:       int32At(b, 0, order),
		nameOffset:   int32At(b, 4, order),
		vectorLength: int32At(b, 8, order),
		dataType:     b[12],
		unit:         Unit(b[14]),
		variability:  Variability(b[15]),
		dataOffset:   int32At(b, 16, order),
	}
}

// check reports a header whose entry does not fit in the room left, or
// whose name and value are not inside the entry in that order.
func (h header) check(room int) error {
	switch {
	case h.length < entryHeaderSize || h.length > room:
		return fmt.Errorf("length %d, with %d bytes left", h.length, room)
	case h.nameOffset < entryHeaderSize || h.nameOffset >= h.dataOffset || h.dataOffset > h.length:
		return fmt.Errorf("name at %d and value at %d in a %d-byte entry", h.nameOffset, h.dataOffset, h.length)
	case h.vectorLength < 0:
		return fmt.Errorf("vector length %d", h.vectorLength)
	}
	return nil
}

// decode returns the entry whose bytes are b, once check has passed.
func (h header) decode(b []byte, order binary.ByteOrder) (entry, error) {
	name := cString(b[h.nameOffset:h.dataOffset])
	if name == "" {
		return entry{}, errors.New("empty name")
	}
	e := entry{length: h.length, name: name, counter: Counter{Unit: h.unit, Variability: h.variability}}
	value := b[h.dataOffset:]
	switch {
	case h.dataType == typeLong && h.vectorLength == 0:
		if len(value) < 8 {
			return entry{}, fmt.Errorf("%s: %d bytes for a long", name, len(value))
		}
		e.counter.Long = int64(order.Uint64(value))
		e.known = true
	case h.dataType == typeByte && h.unit == UnitString:
		if len(value) < h.vectorLength {
			return entry{}, fmt.Errorf("%s: %d bytes for a %d-byte string", name, len(value), h.vectorLength)
		}
		e.counter.Text = cString(value[:h.vectorLength])
		e.known = true
	}
	return e, nil
}

// cString returns b up to its first NUL, or all of b if it has none.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
