package bench_test

import (
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestLookupModel(t *testing.T) {
	for _, tc := range []struct {
		name    bench.Model
		want    bench.Model
		clients bool
		ok      bool
	}{
		{"", bench.ModelOpen, false, true}, // empty means the default
		{bench.ModelOpen, bench.ModelOpen, false, true},
		{bench.ModelClosed, bench.ModelClosed, true, true},
		{"hybrid", "", false, false},
	} {
		m, ok := bench.LookupModel(tc.name)
		if ok != tc.ok {
			t.Errorf("LookupModel(%q) found %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if ok && (m.Name() != tc.want || m.RateLevel() == tc.clients) {
			t.Errorf("LookupModel(%q) = %s (rate level %v), want %s (clients %v)", tc.name, m.Name(), m.RateLevel(), tc.want, tc.clients)
		}
	}
}

func TestModelLevel(t *testing.T) {
	st := bench.Stage{Rate: 250, Concurrency: 16}
	for _, tc := range []struct {
		model bench.Model
		level float64
		unit  string
	}{
		{bench.ModelOpen, 250, "req/s"},
		{bench.ModelClosed, 16, "clients"},
		{"hybrid", 250, "req/s"}, // a name no model has reads as the default
	} {
		m := bench.ModelOf(tc.model)
		if got := m.Level(st); got != tc.level || m.Unit() != tc.unit || m.Name() != tc.model {
			t.Errorf("ModelOf(%q): %s at %g %s, want %s at %g %s", tc.model, m.Name(), got, m.Unit(), tc.model, tc.level, tc.unit)
		}
	}
}

func TestModelNames(t *testing.T) {
	names := bench.ModelNames()
	if len(names) == 0 || names[0] != bench.DefaultModel {
		t.Fatalf("ModelNames() = %v, want the default (%s) first", names, bench.DefaultModel)
	}
	if !slices.IsSorted(names[1:]) || !slices.Contains(names, bench.ModelClosed) {
		t.Errorf("ModelNames() = %v, want the others, closed among them, in order of name", names)
	}
}
