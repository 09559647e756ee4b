package httpapi_test

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/spec"
)

// errNotFaked is what a fake returns for a method the test did not set:
// an untyped error, hence a 500, which no test expects by accident.
var errNotFaked = errors.New("fake: method not set by the test")

// fakeRuns is a hand-written httpapi.Runs whose methods are fields.
type fakeRuns struct {
	SubmitFn      func(ctx context.Context, rs bench.RunSpec) (*bench.Run, error)
	CancelFn      func(ctx context.Context, id string) (*bench.Run, error)
	SubscribeFn   func(ctx context.Context, id string) (<-chan bench.Event, error)
	QueueLengthFn func() int
}

var _ httpapi.Runs = (*fakeRuns)(nil)

// Submit checks a copy of the spec as the real queue does, so that invalid
// specs get their 400s, then hands SubmitFn the spec as received.
func (f *fakeRuns) Submit(ctx context.Context, rs bench.RunSpec) (*bench.Run, error) {
	prepared := rs
	prepared.Workload.Requests = slices.Clone(rs.Workload.Requests)
	if err := spec.Prepare(&prepared, testCatalog); err != nil {
		return nil, err
	}
	if f.SubmitFn == nil {
		return nil, errNotFaked
	}
	return f.SubmitFn(ctx, rs)
}

// testCatalog is the built-in targets, as the daemon's queue checks specs.
var testCatalog = bench.Catalog{Targets: []bench.TargetInfo{
	{Name: bench.TargetGo, Kind: "go"}, {Name: bench.TargetJavaPlatform, Kind: "java"}, {Name: bench.TargetJavaVirtual, Kind: "java"},
}, Builtins: builtin.Set}

func (f *fakeRuns) Cancel(ctx context.Context, id string) (*bench.Run, error) {
	if f.CancelFn == nil {
		return nil, errNotFaked
	}
	return f.CancelFn(ctx, id)
}

func (f *fakeRuns) Subscribe(ctx context.Context, id string) (<-chan bench.Event, error) {
	if f.SubscribeFn == nil {
		return nil, errNotFaked
	}
	return f.SubscribeFn(ctx, id)
}

func (f *fakeRuns) QueueLength() int {
	if f.QueueLengthFn == nil {
		return 0
	}
	return f.QueueLengthFn()
}

// fakeStore is a hand-written httpapi.Store whose methods are fields.
type fakeStore struct {
	CreateRunFn        func(ctx context.Context, run *bench.Run) error
	UpdateRunFn        func(ctx context.Context, run *bench.Run) error
	FindRunByIDFn      func(ctx context.Context, id string) (*bench.Run, error)
	FindRunSummariesFn func(ctx context.Context, filter bench.RunFilter) ([]bench.RunSummary, string, error)
	DeleteRunFn        func(ctx context.Context, id string) error
	SaveSeriesFn       func(ctx context.Context, runID, target string, series []bench.Series) error
	FindSeriesFn       func(ctx context.Context, runID, target string, names []string) ([]bench.Series, error)
	SaveExpositionFn   func(ctx context.Context, runID, target string, e bench.Exposition) error
	FindExpositionsFn  func(ctx context.Context, runID, target string) ([]bench.Exposition, error)
	SaveArtifactFn     func(ctx context.Context, runID string, a bench.Artifact, r io.Reader) error
	ArtifactsFn        func(ctx context.Context, runID string) ([]bench.Artifact, error)
	WriteArtifactFn    func(ctx context.Context, runID string, a bench.Artifact, w io.Writer) error
}

var _ httpapi.Store = (*fakeStore)(nil)

func (f *fakeStore) CreateRun(ctx context.Context, run *bench.Run) error {
	if f.CreateRunFn == nil {
		return errNotFaked
	}
	return f.CreateRunFn(ctx, run)
}

func (f *fakeStore) UpdateRun(ctx context.Context, run *bench.Run) error {
	if f.UpdateRunFn == nil {
		return errNotFaked
	}
	return f.UpdateRunFn(ctx, run)
}

func (f *fakeStore) FindRunByID(ctx context.Context, id string) (*bench.Run, error) {
	if f.FindRunByIDFn == nil {
		return nil, errNotFaked
	}
	return f.FindRunByIDFn(ctx, id)
}

func (f *fakeStore) FindRunSummaries(ctx context.Context, filter bench.RunFilter) ([]bench.RunSummary, string, error) {
	if f.FindRunSummariesFn == nil {
		return nil, "", errNotFaked
	}
	return f.FindRunSummariesFn(ctx, filter)
}

func (f *fakeStore) DeleteRun(ctx context.Context, id string) error {
	if f.DeleteRunFn == nil {
		return errNotFaked
	}
	return f.DeleteRunFn(ctx, id)
}

func (f *fakeStore) SaveSeries(ctx context.Context, runID, target string, series []bench.Series) error {
	if f.SaveSeriesFn == nil {
		return errNotFaked
	}
	return f.SaveSeriesFn(ctx, runID, target, series)
}

func (f *fakeStore) FindSeries(ctx context.Context, runID, target string, names []string) ([]bench.Series, error) {
	if f.FindSeriesFn == nil {
		return nil, errNotFaked
	}
	return f.FindSeriesFn(ctx, runID, target, names)
}

func (f *fakeStore) SaveExposition(ctx context.Context, runID, target string, e bench.Exposition) error {
	if f.SaveExpositionFn == nil {
		return errNotFaked
	}
	return f.SaveExpositionFn(ctx, runID, target, e)
}

func (f *fakeStore) FindExpositions(ctx context.Context, runID, target string) ([]bench.Exposition, error) {
	if f.FindExpositionsFn == nil {
		return nil, errNotFaked
	}
	return f.FindExpositionsFn(ctx, runID, target)
}

func (f *fakeStore) SaveArtifact(ctx context.Context, runID string, a bench.Artifact, r io.Reader) error {
	if f.SaveArtifactFn == nil {
		return errNotFaked
	}
	return f.SaveArtifactFn(ctx, runID, a, r)
}

func (f *fakeStore) Artifacts(ctx context.Context, runID string) ([]bench.Artifact, error) {
	if f.ArtifactsFn == nil {
		return nil, errNotFaked
	}
	return f.ArtifactsFn(ctx, runID)
}

func (f *fakeStore) WriteArtifact(ctx context.Context, runID string, a bench.Artifact, w io.Writer) error {
	if f.WriteArtifactFn == nil {
		return errNotFaked
	}
	return f.WriteArtifactFn(ctx, runID, a, w)
}
