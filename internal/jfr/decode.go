package jfr

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rawEvent is an event as `jfr print --json` writes it, with the values
// the package reads; encoding/json skips the rest (class loaders, modules,
// bytecode indexes), which make up most of the output.
type rawEvent struct {
	Type   string `json:"type"`
	Values struct {
		StartTime     string     `json:"startTime"`
		Duration      *string    `json:"duration"`
		SumOfPauses   *string    `json:"sumOfPauses"`
		EventThread   *rawThread `json:"eventThread"`
		SampledThread *rawThread `json:"sampledThread"`
		StackTrace    *rawStack  `json:"stackTrace"`
		// Fields of one type or another, flattened into Event.Fields.
		Name              *string    `json:"name"`
		Cause             *string    `json:"cause"`
		State             *string    `json:"state"`
		PinnedReason      *string    `json:"pinnedReason"`
		BlockingOperation *string    `json:"blockingOperation"`
		ExceptionMessage  *string    `json:"exceptionMessage"`
		MonitorClass      *rawClass  `json:"monitorClass"`
		ParkedClass       *rawClass  `json:"parkedClass"`
		PreviousOwner     *rawThread `json:"previousOwner"`
		CarrierThread     *rawThread `json:"carrierThread"`
	} `json:"values"`
}

// rawClass is a class value.
type rawClass struct {
	Name string `json:"name"`
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

// convert turns a printed event into an Event.
func convert(raw rawEvent) (Event, error) {
	v := raw.Values
	e := Event{Type: raw.Type}
	var err error
	if e.Start, err = time.Parse(time.RFC3339Nano, v.StartTime); err != nil {
		return Event{}, fmt.Errorf("startTime: %w", err)
	}
	if e.Duration, err = optionalDuration(v.Duration); err != nil {
		return Event{}, fmt.Errorf("duration: %w", err)
	}
	if e.Pause, err = optionalDuration(v.SumOfPauses); err != nil {
		return Event{}, fmt.Errorf("sumOfPauses: %w", err)
	}
	e.Thread = thread(cmp.Or(v.EventThread, v.SampledThread))
	if v.StackTrace != nil {
		e.Truncated, e.Stack = v.StackTrace.Truncated, frames(v.StackTrace)
	}
	e.Fields = fields(raw)
	return e, nil
}

// fields flattens the values of one type or another to text: a class as
// its dotted name, a thread as its Java name.
func fields(raw rawEvent) map[string]string {
	v := raw.Values
	out := map[string]string{}
	for key, s := range map[string]*string{"name": v.Name, "cause": v.Cause, "state": v.State,
		"pinnedReason": v.PinnedReason, "blockingOperation": v.BlockingOperation, "exceptionMessage": v.ExceptionMessage} {
		if s != nil {
			out[key] = *s
		}
	}
	for key, c := range map[string]*rawClass{"monitorClass": v.MonitorClass, "parkedClass": v.ParkedClass} {
		if c != nil {
			out[key] = className(c.Name)
		}
	}
	for key, t := range map[string]*rawThread{"previousOwner": v.PreviousOwner, "carrierThread": v.CarrierThread} {
		if t != nil && t.JavaName != nil {
			out[key] = *t.JavaName
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// optionalDuration reads an ISO-8601 duration, 0 when absent.
func optionalDuration(s *string) (time.Duration, error) {
	if s == nil {
		return 0, nil
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
		// Rounded: 0.008376228 seconds is 8376227.9999... nanoseconds
		// in floating point.
		total += time.Duration(math.Round(v * float64(unit)))
		rest = rest[i+1:]
	}
	return total, nil
}

// thread converts a thread value; the zero Thread when there is none.
func thread(t *rawThread) Thread {
	if t == nil {
		return Thread{}
	}
	out := Thread{ID: t.JavaThreadID, Virtual: t.Virtual}
	if t.JavaName != nil {
		out.Name = *t.JavaName
	}
	return out
}

// frames converts a stack trace, innermost frame first.
func frames(st *rawStack) []Frame {
	out := make([]Frame, len(st.Frames))
	for i, f := range st.Frames {
		out[i] = Frame{Class: className(f.Method.Type.Name), Method: f.Method.Name, Line: max(f.LineNumber, 0), Kind: f.Type}
	}
	return out
}

// className turns a JVM class name ("java/lang/Object") into the dotted
// one. A hidden class (a lambda form, a lambda) loses what the JVM adds to
// its name, the address and number of that one class, as JDK 21 writes it
// ("java/lang/invoke/LambdaForm$DMH+0x00007f93a8ac4000/2053679105") or
// JDK 25 ("java.lang.invoke.LambdaForm$DMH/0x0000000072041000"), so that
// the same code's frames are one frame in stacks and flame graphs.
func className(name string) string {
	return strings.ReplaceAll(hiddenSuffix.ReplaceAllString(name, ""), "/", ".")
}

// hiddenSuffix is what a hidden class's name carries after its own.
var hiddenSuffix = regexp.MustCompile(`(\+0x[0-9a-fA-F]+(/\d+)?|/0x[0-9a-fA-F]+)$`)
