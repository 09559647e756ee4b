package jfr

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// compactHeader is the first line of the reader's output: the format's
// name and version (reader/Reader.java's HEADER).
const compactHeader = "threadbench-jfr 1"

// DecodeCompact reads the output of the embedded reader
// (reader/Reader.java, whose comment describes the format): a header,
// then tab-separated lines that define each thread (T), frame (F) and
// stack (S) once, before the first event (E) that names them by number,
// and an end line with the count of events. It returns the same events
// Decode returns for `jfr print --json`, sorted by start; events with the
// same stack share its frames, and events with the same fields their
// Fields, which nothing may change.
func DecodeCompact(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	// A stack's line lists up to RecorderDepth frame numbers, an event's
	// a few fields; a long exception message is the longest line.
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	d := newCompactDecoder()
	for sc.Scan() {
		d.line++
		if err := d.decodeLine(sc.Text()); err != nil {
			return nil, fmt.Errorf("jfr reader output, line %d: %w", d.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("jfr reader output, after line %d: %w", d.line, err)
	}
	if !d.ended {
		return nil, fmt.Errorf("jfr reader output ends after line %d without its end line: cut short", d.line)
	}
	slices.SortStableFunc(d.events, func(a, b Event) int { return a.Start.Compare(b.Start) })
	return d.events, nil
}

// compactDecoder holds what the lines read so far defined.
type compactDecoder struct {
	line    int
	threads []Thread
	frames  []Frame
	stacks  []compactStack
	events  []Event
	ended   bool
	// names interns the texts events repeat (types, keys, class names),
	// so that an event does not keep its whole line alive.
	names map[string]string
	// shared holds the fields decoded, by their text.
	shared map[string]compactFields
}

// compactStack is a stack as defined by an S line.
type compactStack struct {
	frames    []Frame
	truncated bool
}

func newCompactDecoder() *compactDecoder {
	return &compactDecoder{names: map[string]string{}, shared: map[string]compactFields{}}
}

// decodeLine reads one line.
func (d *compactDecoder) decodeLine(line string) error {
	if d.line == 1 {
		if line != compactHeader {
			return fmt.Errorf("want the header %q, got %q", compactHeader, line)
		}
		return nil
	}
	if d.ended {
		return fmt.Errorf("a line after the end line: %q", line)
	}
	if rest, ok := strings.CutPrefix(line, "E\t"); ok {
		return d.event(rest)
	}
	values := strings.Split(line, "\t")
	switch values[0] {
	case "T":
		return d.thread(values[1:])
	case "F":
		return d.frame(values[1:])
	case "S":
		return d.stack(values[1:])
	case "end":
		return d.end(values[1:])
	}
	return fmt.Errorf("unknown line %q", line)
}

// event reads "type startNanos durationNanos thread stack key=value...".
func (d *compactDecoder) event(line string) error {
	values := strings.SplitN(line, "\t", 6)
	if len(values) < 5 {
		return fmt.Errorf("an event needs at least 5 values, got %d", len(values))
	}
	e := Event{Type: d.intern(values[0])}
	start, err := strconv.ParseInt(values[1], 10, 64)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	e.Start = time.Unix(0, start).UTC()
	duration, err := strconv.ParseInt(values[2], 10, 64)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	e.Duration = time.Duration(duration)
	if e.Thread, err = d.threadRef(values[3]); err != nil {
		return err
	}
	if values[4] != "-" {
		s, err := ref(d.stacks, values[4], "stack")
		if err != nil {
			return err
		}
		e.Stack, e.Truncated = s.frames, s.truncated
	}
	if len(values) == 6 {
		f, err := d.fields(values[5])
		if err != nil {
			return err
		}
		e.Fields, e.Pause = f.fields, f.pause
	}
	d.events = append(d.events, e)
	return nil
}

// compactFields are an event's fields as decoded.
type compactFields struct {
	fields map[string]string
	pause  time.Duration
}

// maxSharedFields bounds how many distinct sets of fields the decoder
// keeps to share (exception messages, say, may all differ).
const maxSharedFields = 4096

// fields returns the fields an event's line ends with, decoded: the same
// set for every event whose fields are written alike (a park's class, a
// sample's state), since a recording may hold millions of events and
// nothing changes an event's Fields.
func (d *compactDecoder) fields(text string) (compactFields, error) {
	if f, ok := d.shared[text]; ok {
		return f, nil
	}
	f, err := d.decodeFields(strings.Split(text, "\t"))
	if err == nil && len(d.shared) < maxSharedFields {
		d.shared[strings.Clone(text)] = f
	}
	return f, err
}

// decodeFields reads key=value fields into Fields (a class as its dotted
// name), and sumOfPauses, in nanoseconds, into Pause.
func (d *compactDecoder) decodeFields(pairs []string) (compactFields, error) {
	var f compactFields
	for _, pair := range pairs {
		key, raw, ok := strings.Cut(pair, "=")
		if !ok {
			return f, fmt.Errorf("field %q is not key=value", pair)
		}
		value, err := unescape(raw)
		if err != nil {
			return f, fmt.Errorf("field %s: %w", key, err)
		}
		switch key {
		case "sumOfPauses":
			nanos, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return f, fmt.Errorf("sumOfPauses: %w", err)
			}
			f.pause = time.Duration(nanos)
			continue
		case "monitorClass", "parkedClass":
			value = className(value)
		}
		if f.fields == nil {
			f.fields = map[string]string{}
		}
		f.fields[d.intern(key)] = d.intern(value)
	}
	return f, nil
}

// threadRef returns the thread a number names; the zero Thread for "-".
func (d *compactDecoder) threadRef(value string) (Thread, error) {
	if value == "-" {
		return Thread{}, nil
	}
	return ref(d.threads, value, "thread")
}

// thread reads "id javaThreadId virtual javaName".
func (d *compactDecoder) thread(values []string) error {
	if len(values) != 4 {
		return fmt.Errorf("a thread needs 4 values, got %d", len(values))
	}
	if err := d.next(values[0], len(d.threads), "thread"); err != nil {
		return err
	}
	id, err := strconv.ParseInt(values[1], 10, 64)
	if err != nil {
		return fmt.Errorf("thread id: %w", err)
	}
	name, err := unescape(values[3])
	if err != nil {
		return fmt.Errorf("thread name: %w", err)
	}
	d.threads = append(d.threads, Thread{Name: name, ID: id, Virtual: values[2] == "1"})
	return nil
}

// frame reads "id class method line kind".
func (d *compactDecoder) frame(values []string) error {
	if len(values) != 5 {
		return fmt.Errorf("a frame needs 5 values, got %d", len(values))
	}
	if err := d.next(values[0], len(d.frames), "frame"); err != nil {
		return err
	}
	class, err := unescape(values[1])
	if err != nil {
		return fmt.Errorf("frame class: %w", err)
	}
	method, err := unescape(values[2])
	if err != nil {
		return fmt.Errorf("frame method: %w", err)
	}
	line, err := strconv.Atoi(values[3])
	if err != nil {
		return fmt.Errorf("frame line: %w", err)
	}
	d.frames = append(d.frames, Frame{Class: className(class), Method: method, Line: max(line, 0), Kind: d.intern(values[4])})
	return nil
}

// stack reads "id truncated frame,frame,...", innermost frame first.
func (d *compactDecoder) stack(values []string) error {
	if len(values) != 3 {
		return fmt.Errorf("a stack needs 3 values, got %d", len(values))
	}
	if err := d.next(values[0], len(d.stacks), "stack"); err != nil {
		return err
	}
	s := compactStack{truncated: values[1] == "1"}
	if values[2] != "" {
		for _, n := range strings.Split(values[2], ",") {
			f, err := ref(d.frames, n, "frame")
			if err != nil {
				return err
			}
			s.frames = append(s.frames, f)
		}
	}
	d.stacks = append(d.stacks, s)
	return nil
}

// end reads "count", which must be the number of events read.
func (d *compactDecoder) end(values []string) error {
	if len(values) != 1 {
		return fmt.Errorf("the end line needs 1 value, got %d", len(values))
	}
	n, err := strconv.Atoi(values[0])
	if err != nil || n != len(d.events) {
		return fmt.Errorf("the end line counts %q events, %d were read", values[0], len(d.events))
	}
	d.ended = true
	return nil
}

// next checks that a definition's number is the next one: numbers count
// from 0 in the order of the definitions.
func (d *compactDecoder) next(value string, want int, what string) error {
	if value != strconv.Itoa(want) {
		return fmt.Errorf("%s %q defined out of order, want %d", what, value, want)
	}
	return nil
}

// ref returns the item a number names among those defined so far.
func ref[T any](defined []T, value, what string) (T, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n >= len(defined) {
		var zero T
		return zero, fmt.Errorf("%s %q is not defined", what, value)
	}
	return defined[n], nil
}

// intern returns the one copy of s the decoder keeps.
func (d *compactDecoder) intern(s string) string {
	if kept, ok := d.names[s]; ok {
		return kept
	}
	s = strings.Clone(s)
	d.names[s] = s
	return s
}

// unescape undoes the reader's escapes: \\, \t, \n and \r; \N (a null
// value) reads as empty, as a missing Java name does in Decode.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	if s == `\N` {
		return "", nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", fmt.Errorf("%q ends in a lone backslash", s)
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("%q has an unknown escape \\%c", s, s[i])
		}
	}
	return b.String(), nil
}
