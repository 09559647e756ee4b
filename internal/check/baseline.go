package check

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// FieldBaseline is the flag a baseline is given by, which its errors name.
const FieldBaseline = "--baseline"

// labelPrefix starts a baseline chosen by a label: "label:branch=main";
// filePrefix one given as a results file: "file:bench/main.json".
const (
	labelPrefix = "label:"
	filePrefix  = "file:"
)

// Baseline is the run a check compares against: one by its ID, the latest
// succeeded run of the same name carrying a label, or a run document kept
// in a file (committed to the repository beside the spec).
type Baseline struct {
	RunID string
	Key   string // with Value, the label; empty for a baseline by ID
	Value string
	File  string // a run document's path
}

// ParseBaseline reads a run ID, "label:KEY=VALUE" or "file:PATH".
func ParseBaseline(s string) (Baseline, error) {
	s = strings.TrimSpace(s)
	if path, ok := strings.CutPrefix(s, filePrefix); ok {
		if strings.TrimSpace(path) == "" {
			return Baseline{}, bench.FieldErrorf(FieldBaseline, "%q: want file:PATH, a run document as run -o json writes it", s)
		}
		return Baseline{File: path}, nil
	}
	label, byLabel := strings.CutPrefix(s, labelPrefix)
	if !byLabel {
		if s == "" {
			return Baseline{}, bench.FieldErrorf(FieldBaseline, "empty: give a run ID or label:KEY=VALUE, e.g. label:branch=main")
		}
		return Baseline{RunID: s}, nil
	}
	key, value, ok := strings.Cut(label, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return Baseline{}, bench.FieldErrorf(FieldBaseline, "%q: want label:KEY=VALUE, e.g. label:branch=main", s)
	}
	return Baseline{Key: strings.TrimSpace(key), Value: value}, nil
}

// ByLabel reports whether the baseline is chosen by a label.
func (b Baseline) ByLabel() bool { return b.Key != "" }

// String writes the baseline as ParseBaseline reads it.
func (b Baseline) String() string {
	switch {
	case b.ByLabel():
		return labelPrefix + b.Key + "=" + b.Value
	case b.File != "":
		return filePrefix + b.File
	}
	return b.RunID
}

// ReadFile reads a baseline given as a file: a run document, as `run -o
// json` and `runs show -o json` write it, of a run named name that
// succeeded.
func (b Baseline) ReadFile(name string) (*bench.Run, error) {
	data, err := os.ReadFile(b.File)
	if err != nil {
		return nil, bench.FieldErrorf(FieldBaseline, "read %s: %v", b.File, err)
	}
	var run bench.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, bench.FieldErrorf(FieldBaseline, "%s is not a run document (run -o json writes one): %v", b.File, err)
	}
	if run.ID == "" || len(run.Targets) == 0 {
		return nil, bench.FieldErrorf(FieldBaseline, "%s is not a run document (run -o json writes one): it has no run ID or no target", b.File)
	}
	return &run, CheckRun(&run, name)
}

// Picks reports whether r may be the baseline of a run named name chosen
// by the label: it succeeded, has the same name and carries the label.
func (b Baseline) Picks(r *bench.Run, name string) bool {
	v, ok := r.Spec.Labels[b.Key]
	return r.Status == bench.RunSucceeded && r.Name == name && ok && v == b.Value
}

// CheckName refuses a baseline by label for a run without a name: the
// label would pick the latest unnamed run of any spec.
func (b Baseline) CheckName(name string) error {
	if b.ByLabel() && name == "" {
		return bench.FieldErrorf(FieldBaseline, "%s finds the latest run of the same spec name: name the spec (name:, or --name)", b)
	}
	return nil
}

// NoneCarries is the error of a label no run of the name carries.
func (b Baseline) NoneCarries(name string) error {
	return bench.FieldErrorf(FieldBaseline, "no succeeded run named %q carries the label %s=%s", name, b.Key, b.Value)
}

// CheckRun refuses a baseline given by ID that cannot be one for a run
// named name: another spec's (another name), or one that did not succeed.
func CheckRun(r *bench.Run, name string) error {
	switch {
	case r.Name != name:
		return bench.FieldErrorf(FieldBaseline, "run %s is of spec %q, not %q: compare runs of the same spec", r.ID, r.Name, name)
	case r.Status != bench.RunSucceeded:
		return bench.FieldErrorf(FieldBaseline, "run %s %s: a baseline must have succeeded", r.ID, r.Status)
	}
	return nil
}

// Runs is what Find reads of the history: the local store and the
// daemon's client both serve it.
type Runs interface {
	FindRunByID(ctx context.Context, id string) (*bench.Run, error)
	FindRunSummaries(ctx context.Context, f bench.RunFilter) ([]bench.RunSummary, string, error)
}

// Find returns the ID of the baseline of a run named name: the one given,
// checked, or the latest run of that name carrying the label.
func (b Baseline) Find(ctx context.Context, h Runs, name string) (string, error) {
	if b.ByLabel() {
		return b.latestLabelled(ctx, h, name)
	}
	run, err := h.FindRunByID(ctx, b.RunID)
	if bench.ErrorCode(err) == bench.ENOTFOUND {
		return "", bench.FieldErrorf(FieldBaseline, "no run %s in the history", b.RunID)
	} else if err != nil {
		return "", err
	}
	return run.ID, CheckRun(run, name)
}

// latestLabelled returns the newest succeeded run named name that carries
// the baseline's label.
func (b Baseline) latestLabelled(ctx context.Context, h Runs, name string) (string, error) {
	var found string
	err := EachNamed(ctx, h, name, func(run *bench.Run) bool {
		if b.Picks(run, name) {
			found = run.ID
		}
		return found == ""
	})
	if err == nil && found == "" {
		err = b.NoneCarries(name)
	}
	return found, err
}

// EachNamed pages through the succeeded runs named exactly name, newest
// first, and calls fn with each whole run (labels are in the documents,
// not the summaries) until fn returns false.
func EachNamed(ctx context.Context, h Runs, name string, fn func(*bench.Run) bool) error {
	filter := bench.RunFilter{Name: name, Status: []bench.RunStatus{bench.RunSucceeded}, Limit: 200}
	for {
		page, next, err := h.FindRunSummaries(ctx, filter)
		if err != nil {
			return err
		}
		for _, s := range page {
			if s.Name != name { // the filter matches part of a name
				continue
			}
			run, err := h.FindRunByID(ctx, s.ID)
			if err != nil {
				return err
			}
			if !fn(run) {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		filter.Cursor = next
	}
}
