package store_test

import (
	"context"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// BenchmarkCreateUpdateRun stores a queued run and then its full result:
// three targets of 600 seconds each, as the runner does at the end of a
// ten-minute run.
func BenchmarkCreateUpdateRun(b *testing.B) {
	db := MustOpenDB(b)
	full := fullRun("bench")
	ctx := context.Background()
	for b.Loop() {
		run := &bench.Run{Status: bench.RunQueued, Spec: full.Spec}
		if err := db.CreateRun(ctx, run); err != nil {
			b.Fatal(err)
		}
		done := *full
		done.ID, done.CreatedAt = run.ID, run.CreatedAt
		if err := db.UpdateRun(ctx, &done); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(mustJSON(b, full))), "doc-bytes")
}

// BenchmarkFindRunByID reads back one full run document.
func BenchmarkFindRunByID(b *testing.B) {
	db := MustOpenDB(b)
	run := fullRun("bench")
	if err := db.CreateRun(context.Background(), run); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := db.FindRunByID(context.Background(), run.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindRunSummaries lists a default page of 50 from 200 full runs.
func BenchmarkFindRunSummaries(b *testing.B) {
	db := MustOpenDB(b)
	for range 200 {
		run := fullRun("bench")
		run.ID = ""
		if err := db.CreateRun(context.Background(), run); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		runs, _, err := db.FindRunSummaries(context.Background(), bench.RunFilter{})
		if err != nil || len(runs) != 50 {
			b.Fatalf("FindRunSummaries = %d runs, %v", len(runs), err)
		}
	}
}
