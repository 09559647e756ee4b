package store_test

import (
	"context"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestDB_Series(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := fullRun("series")
	mustCreate(t, db, run)
	goSeries := []bench.Series{
		{Name: "go_goroutines", Points: []bench.Point{{T: -1.5, V: 8}, {T: 0, V: 12}, {T: 1, V: 240.5}}},
		{Name: "container_memory_working_set_bytes", Labels: map[string]string{"container": "go"},
			Points: []bench.Point{{T: 0, V: 5e7}}},
		{Name: "go_goroutines", Labels: map[string]string{"kind": "second"}, Points: []bench.Point{}},
	}
	if err := db.SaveSeries(ctx, run.ID, "go", goSeries); err != nil {
		t.Fatal(err)
	}
	javaSeries := []bench.Series{{Name: "jvm_threads_live_threads", Points: []bench.Point{{T: 0, V: 210}}}}
	if err := db.SaveSeries(ctx, run.ID, "java-platform", javaSeries); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		target string
		names  []string
		want   []bench.Series
	}{
		{"all of a target, in order", "go", nil, goSeries},
		{"by name", "go", []string{"go_goroutines"}, []bench.Series{goSeries[0], goSeries[2]}},
		{"by several names", "go", []string{"container_memory_working_set_bytes", "jvm_threads_live_threads"}, goSeries[1:2]},
		{"unknown name", "go", []string{"nope"}, []bench.Series{}},
		{"other target", "java-platform", nil, javaSeries},
		{"target with none", "java-virtual", nil, []bench.Series{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.FindSeries(ctx, run.ID, tt.target, tt.names)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := mustJSON(t, got), mustJSON(t, tt.want); got != want {
				t.Errorf("series:\n got %s\nwant %s", got, want)
			}
		})
	}

	t.Run("SaveReplaces", func(t *testing.T) {
		if err := db.SaveSeries(ctx, run.ID, "java-platform", goSeries[:1]); err != nil {
			t.Fatal(err)
		}
		got, err := db.FindSeries(ctx, run.ID, "java-platform", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mustJSON(t, got), mustJSON(t, goSeries[:1]); got != want {
			t.Errorf("after second save:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("ErrNameRequired", func(t *testing.T) {
		err := db.SaveSeries(ctx, run.ID, "go", []bench.Series{{Name: "ok"}, {}})
		if got, want := fieldOf(err), "series[1].name"; got != want {
			t.Errorf("error %v: field %q, want %q", err, got, want)
		}
		// The failed save left the previous series in place.
		got, err := db.FindSeries(ctx, run.ID, "go", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(got), len(goSeries); got != want {
			t.Errorf("series after failed save = %d, want %d", got, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if err := db.SaveSeries(ctx, "rnope", "go", goSeries); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("SaveSeries: %v, want ENOTFOUND", err)
		}
		if _, err := db.FindSeries(ctx, "rnope", "go", nil); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("FindSeries: %v, want ENOTFOUND", err)
		}
	})
}

func TestDB_Expositions(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := fullRun("expositions")
	mustCreate(t, db, run)
	start := bench.Exposition{At: "start", Text: "# TYPE go_goroutines gauge\ngo_goroutines 8\n"}
	end := bench.Exposition{At: "end", Text: "# TYPE go_goroutines gauge\ngo_goroutines 12\n"}
	for _, e := range []bench.Exposition{start, end} {
		if err := db.SaveExposition(ctx, run.ID, "go", e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveExposition(ctx, run.ID, "java-virtual", bench.Exposition{At: "end", Text: "other\n"}); err != nil {
		t.Fatal(err)
	}
	// Saving "start" again replaces it and keeps its place.
	start.Text = "go_goroutines 9\n"
	if err := db.SaveExposition(ctx, run.ID, "go", start); err != nil {
		t.Fatal(err)
	}

	got, err := db.FindExpositions(ctx, run.ID, "go")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, got), mustJSON(t, []bench.Exposition{start, end}); got != want {
		t.Errorf("expositions:\n got %s\nwant %s", got, want)
	}
	none, err := db.FindExpositions(ctx, run.ID, "java-platform")
	if err != nil {
		t.Fatal(err)
	}
	if len(none) != 0 {
		t.Errorf("target without expositions has %d", len(none))
	}

	t.Run("ErrAtRequired", func(t *testing.T) {
		err := db.SaveExposition(ctx, run.ID, "go", bench.Exposition{Text: "x"})
		if got, want := fieldOf(err), "at"; got != want {
			t.Errorf("error %v: field %q, want %q", err, got, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if err := db.SaveExposition(ctx, "rnope", "go", end); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("SaveExposition: %v, want ENOTFOUND", err)
		}
		if _, err := db.FindExpositions(ctx, "rnope", "go"); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("FindExpositions: %v, want ENOTFOUND", err)
		}
	})
}
