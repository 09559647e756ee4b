package jfr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rawEvent is an event as `jfr print --json` writes it.
type rawEvent struct {
	Type   string                     `json:"type"`
	Values map[string]json.RawMessage `json:"values"`
}

// rawThread is a thread value.
type rawThread struct {
	JavaName     *string `json:"javaName"`
	JavaThreadID int64   `json:"javaThreadId"`
	Virtual      bool    `json:"virtual"`
}

// rawStack is a stack trace value.
type rawStack struct {
	Truncated bool `json:"truncated"`
	Frames    []struct {
		Method struct {
			Type struct {
				Name string `json:"name"`
			} `json:"type"`
			Name string `json:"name"`
		} `json:"method"`
		LineNumber int    `json:"lineNumber"`
		Type       string `json:"type"`
	} `json:"frames"`
}

// Decode reads the output of `jfr print --json` event by event, keeping
// one event's JSON in memory at a time (a recording prints to hundreds of
// megabytes), and returns the events sorted by start time.
func Decode(r io.Reader) ([]Event, error) {
	dec := json.NewDecoder(r)
	for _, want := range []any{json.Delim('{'), "recording", json.Delim('{'), "events", json.Delim('[')} {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("jfr print output: %w", err)
		}
		if tok != want {
			return nil, fmt.Errorf("jfr print output: want %v, got %v", want, tok)
		}
	}
	var events []Event
	for dec.More() {
		var raw rawEvent
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("jfr print output, event %d: %w", len(events)+1, err)
		}
		e, err := convert(raw)
		if err != nil {
			return nil, fmt.Errorf("jfr print output, event %d (%s): %w", len(events)+1, raw.Type, err)
		}
		events = append(events, e)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("jfr print output: %w", err)
	}
	slices.SortStableFunc(events, func(a, b Event) int { return a.Start.Compare(b.Start) })
	return events, nil
}

// fieldDecoders decode the values every event type shares; the others go
// to Fields.
var fieldDecoders = map[string]func(e *Event, raw json.RawMessage) error{
	"startTime": func(e *Event, raw json.RawMessage) (err error) {
		e.Start, err = decodeTime(raw)
		return err
	},
	"duration": func(e *Event, raw json.RawMessage) (err error) {
		e.Duration, err = decodeDuration(raw)
		return err
	},
	"sumOfPauses": func(e *Event, raw json.RawMessage) (err error) {
		e.Pause, err = decodeDuration(raw)
		return err
	},
	"eventThread":   decodeThread,
	"sampledThread": decodeThread,
	"stackTrace":    decodeStack,
}

// convert turns a printed event into an Event.
func convert(raw rawEvent) (Event, error) {
	e := Event{Type: raw.Type}
	for _, key := range slices.Sorted(maps.Keys(raw.Values)) {
		value := raw.Values[key]
		if fn := fieldDecoders[key]; fn != nil {
			if err := fn(&e, value); err != nil {
				return Event{}, fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		if text, ok := flatten(value); ok {
			if e.Fields == nil {
				e.Fields = map[string]string{}
			}
			e.Fields[key] = text
		}
	}
	if e.Start.IsZero() {
		return Event{}, errors.New("no startTime")
	}
	return e, nil
}

// decodeTime reads an RFC 3339 timestamp.
func decodeTime(raw json.RawMessage) (time.Time, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, s)
}

// decodeDuration reads an ISO-8601 duration ("PT0.023961274S"), or null.
func decodeDuration(raw json.RawMessage) (time.Duration, error) {
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return 0, err
	}
	return ParseISODuration(*s)
}

// ParseISODuration reads the durations `jfr print --json` writes, Java's
// Duration.toString(): "PT0.0157S", "PT1M2.5S", "PT2H", "PT-0.5S".
func ParseISODuration(s string) (time.Duration, error) {
	rest, ok := strings.CutPrefix(s, "PT")
	if !ok || rest == "" {
		return 0, fmt.Errorf("not an ISO-8601 duration: %q", s)
	}
	var total time.Duration
	for rest != "" {
		i := strings.IndexAny(rest, "HMS")
		if i <= 0 {
			return 0, fmt.Errorf("not an ISO-8601 duration: %q", s)
		}
		v, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("not an ISO-8601 duration: %q", s)
		}
		unit := map[byte]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second}[rest[i]]
		total += time.Duration(v * float64(unit))
		rest = rest[i+1:]
	}
	return total, nil
}

// decodeThread reads the event's thread.
func decodeThread(e *Event, raw json.RawMessage) error {
	var t *rawThread
	if err := json.Unmarshal(raw, &t); err != nil || t == nil {
		return err
	}
	e.Thread = Thread{ID: t.JavaThreadID, Virtual: t.Virtual}
	if t.JavaName != nil {
		e.Thread.Name = *t.JavaName
	}
	return nil
}

// decodeStack reads the event's stack trace, innermost frame first.
func decodeStack(e *Event, raw json.RawMessage) error {
	var st *rawStack
	if err := json.Unmarshal(raw, &st); err != nil || st == nil {
		return err
	}
	e.Truncated = st.Truncated
	e.Stack = make([]Frame, len(st.Frames))
	for i, f := range st.Frames {
		e.Stack[i] = Frame{Class: className(f.Method.Type.Name), Method: f.Method.Name, Line: max(f.LineNumber, 0), Kind: f.Type}
	}
	return nil
}

// className turns a JVM class name ("java/lang/Object") into the dotted
// one.
func className(name string) string { return strings.ReplaceAll(name, "/", ".") }

// flatten turns an event-specific value into text: a string as is, a
// class as its dotted name, a thread as its Java name, a number or a
// boolean as JSON writes it. Null and other objects are left out.
func flatten(raw json.RawMessage) (string, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case float64, bool:
		return string(raw), true
	case map[string]any:
		if name, ok := v["javaName"].(string); ok {
			return name, true
		}
		if name, ok := v["name"].(string); ok {
			if _, isClass := v["package"]; isClass {
				return className(name), true
			}
		}
	}
	return "", false
}
