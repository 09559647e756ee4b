package report_test

import (
	"context"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/report"
)

// seriesStore serves a fixture's series and counts what it was asked for.
type seriesStore struct {
	bench.SeriesStore // unused methods
	series            map[string][]bench.Series
	asked             []string
}

func (s *seriesStore) FindSeries(_ context.Context, _, target string, names []string) ([]bench.Series, error) {
	s.asked = append(s.asked, target)
	return s.series[target], nil
}

// LoadSource is where every report's source is assembled: the run and the
// catalog's targets always, the series when the format charts them and
// there is a store, for the first round of each result.
func TestLoadSource(t *testing.T) {
	run, targets := threeTargetRun(t), fixtureTargets()
	store := &seriesStore{series: fixtureSeries()}
	src, err := report.LoadSource(context.Background(), store, run, targets, false)
	if err != nil || src.Run != run || len(src.Targets) != len(targets) || src.Series != nil || store.asked != nil {
		t.Errorf("without series: %+v, %v; the store was asked for %v", src, err, store.asked)
	}
	src, err = report.LoadSource(context.Background(), store, run, targets, true)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tr := range run.Targets {
		keys = append(keys, tr.Key())
	}
	if !slices.Equal(store.asked, keys) || len(src.Series) != len(keys) {
		t.Errorf("series asked for %v (%d loaded), want %v", store.asked, len(src.Series), keys)
	}
	if src, err := report.LoadSource(context.Background(), nil, run, targets, true); err != nil || src.Series != nil {
		t.Errorf("without a store: %v, %d series", err, len(src.Series))
	}
}
