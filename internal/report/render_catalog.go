package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// WriteTargets writes the catalog as "table" (name, kind, thread model,
// variants, metrics path, description) or "json".
func WriteTargets(w io.Writer, targets []bench.TargetInfo, format string) error {
	f, err := lookup(KindTargets, format)
	if err != nil {
		return err
	}
	return f.targets(w, targets)
}

func targetsTable(w io.Writer, targets []bench.TargetInfo) error {
	var buf bytes.Buffer
	tw := newTable(&buf)
	writeRows(tw, "", [][]string{{"NAME", "KIND", "THREAD MODEL", "VARIANTS", "METRICS", "DESCRIPTION"}})
	for _, t := range targets {
		writeRows(tw, "", [][]string{{t.Name, t.Kind, t.ThreadModel, variantsLabel(t), t.MetricsPath, t.Description}})
	}
	tw.Flush()
	return flush(w, &buf)
}

// variantsLabel writes "jdk 25 (default), 21", "variant platform,
// virtual × jdk 21, 25" for a target on several axes, or "-".
func variantsLabel(t bench.TargetInfo) string {
	if len(t.Variants) == 0 {
		return "-"
	}
	if axes := t.AxesOf(); len(axes) > 1 {
		return axesLabel(axes)
	}
	values := make([]string, len(t.Variants))
	for i, v := range t.Variants {
		values[i] = v
		if v == t.DefaultVariant {
			values[i] += " (default)"
		}
	}
	return t.Variant + " " + strings.Join(values, ", ")
}

// WriteProfiles writes the built-in profiles as "table" (name, model,
// length, stages, description) or "json".
func WriteProfiles(w io.Writer, profiles []bench.Profile, format string) error {
	f, err := lookup(KindProfiles, format)
	if err != nil {
		return err
	}
	return f.profiles(w, profiles)
}

func profilesTable(w io.Writer, profiles []bench.Profile) error {
	var buf bytes.Buffer
	tw := newTable(&buf)
	writeRows(tw, "", [][]string{{"NAME", "MODEL", "LENGTH", "STAGES", "DESCRIPTION"}})
	for _, p := range profiles {
		writeRows(tw, "", [][]string{{p.Name, string(p.Model), p.Duration().String(), stagesLabel(p), p.Description}})
	}
	tw.Flush()
	return flush(w, &buf)
}

// stagesLabel writes a profile's shape compactly: "0->100/6s 100->300/12s"
// or "16x10s 32x10s".
func stagesLabel(p bench.Profile) string {
	var parts []string
	prev := 0.0
	model := p.LoadModel()
	for _, s := range p.Stages {
		level := model.Level(s)
		if s.Ramp {
			parts = append(parts, fmt.Sprintf("%g->%g/%s", prev, level, s.Duration))
		} else {
			parts = append(parts, fmt.Sprintf("%gx%s", level, s.Duration))
		}
		prev = level
	}
	return strings.Join(parts, " ")
}

// nonNil makes a nil list encode as [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
