package store_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestDB_Artifacts(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	run := fullRun("artifacts")
	mustCreate(t, db, run)
	one := 1
	// Two and a half chunks, each byte telling where it is.
	big := make([]byte, 5<<19)
	for i := range big {
		big[i] = byte(i % 251)
	}
	recording := bench.Artifact{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactJFR}
	folded := bench.Artifact{Target: bench.TargetGo, Stage: &one, Kind: bench.ArtifactFolded}
	mustSaveArtifact(t, db, run.ID, recording, big)
	mustSaveArtifact(t, db, run.ID, folded, []byte("main;work 3\n"))

	t.Run("Lists", func(t *testing.T) {
		got, err := db.Artifacts(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []bench.Artifact{{Target: bench.TargetGo, Stage: &one, Kind: bench.ArtifactFolded, Bytes: 12},
			{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactJFR, Bytes: int64(len(big))}}
		if got, want := mustJSON(t, got), mustJSON(t, want); got != want {
			t.Errorf("artifacts:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("WritesBack", func(t *testing.T) {
		var buf bytes.Buffer
		if err := db.WriteArtifact(ctx, run.ID, recording, &buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), big) {
			t.Errorf("read back %d bytes, not the %d saved", buf.Len(), len(big))
		}
	})
	t.Run("Replaces", func(t *testing.T) {
		mustSaveArtifact(t, db, run.ID, folded, []byte("main;other 1\n"))
		var buf bytes.Buffer
		if err := db.WriteArtifact(ctx, run.ID, folded, &buf); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != "main;other 1\n" {
			t.Errorf("read back %q", got)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		two := 2
		tests := []struct {
			name  string
			runID string
			a     bench.Artifact
			data  string
			code  string
		}{
			{"unknown run", "rnope", recording, "x", bench.ENOTFOUND},
			{"target the run has not", run.ID, bench.Artifact{Target: "orders@virtual", Kind: bench.ArtifactJFR, Bytes: 1}, "x", bench.ENOTFOUND},
			{"unknown kind", run.ID, bench.Artifact{Target: bench.TargetGo, Kind: "../../etc/passwd", Bytes: 1}, "x", bench.EINVALID},
			{"a recording of a stage", run.ID, bench.Artifact{Target: bench.TargetGo, Stage: &two, Kind: bench.ArtifactJFR, Bytes: 1}, "x", bench.EINVALID},
			{"a stage's profile of no stage", run.ID, bench.Artifact{Target: bench.TargetGo, Kind: bench.ArtifactPprof, Bytes: 1}, "x", bench.EINVALID},
			{"shorter than said", run.ID, bench.Artifact{Target: bench.TargetGo, Stage: &two, Kind: bench.ArtifactPprof, Bytes: 5}, "abc", bench.EINVALID},
			{"longer than said", run.ID, bench.Artifact{Target: bench.TargetGo, Stage: &two, Kind: bench.ArtifactPprof, Bytes: 2}, "abc", bench.EINVALID},
			{"too large", run.ID, bench.Artifact{Target: bench.TargetGo, Kind: bench.ArtifactJFR, Bytes: bench.MaxArtifactBytes + 1}, "", bench.EINVALID},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.a.Bytes == 0 {
					tt.a.Bytes = int64(len(tt.data))
				}
				err := db.SaveArtifact(ctx, tt.runID, tt.a, strings.NewReader(tt.data))
				if got := bench.ErrorCode(err); got != tt.code {
					t.Errorf("code %q, want %q (%v)", got, tt.code, err)
				}
			})
		}
		// Nothing of a refused file is kept, and the run is as it was.
		got, err := db.Artifacts(ctx, run.ID)
		if err != nil || len(got) != 2 {
			t.Errorf("after the refusals: %d files (%v), want the 2 saved", len(got), err)
		}
		if stored := mustFind(t, db, run.ID); len(stored.Targets) != len(run.Targets) {
			t.Errorf("the run has %d targets after the refusals, want %d", len(stored.Targets), len(run.Targets))
		}
	})
	t.Run("ReaderFails", func(t *testing.T) {
		two := 2
		a := bench.Artifact{Target: bench.TargetGo, Stage: &two, Kind: bench.ArtifactPprof, Bytes: 10}
		err := db.SaveArtifact(ctx, run.ID, a, failingReader{})
		if err == nil {
			t.Fatal("saved from a reader that failed")
		}
		if err := db.WriteArtifact(ctx, run.ID, a, &bytes.Buffer{}); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("a file whose reader failed is there: %v", err)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		two := 2
		err := db.WriteArtifact(ctx, run.ID, bench.Artifact{Target: bench.TargetGo, Stage: &two, Kind: bench.ArtifactFolded}, &bytes.Buffer{})
		if got := bench.ErrorCode(err); got != bench.ENOTFOUND {
			t.Errorf("code %q, want %q (%v)", got, bench.ENOTFOUND, err)
		}
		if _, err := db.Artifacts(ctx, "rnope"); bench.ErrorCode(err) != bench.ENOTFOUND {
			t.Errorf("files of an unknown run: %v", err)
		}
	})
}

// A run keeps at most its bound of files: one more is refused, whatever
// its own size, and replacing a file counts its new size only.
func TestDB_ArtifactsBound(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	db.RunArtifactBytes = 10
	run := fullRun("bound")
	mustCreate(t, db, run)
	recording := bench.Artifact{Target: bench.TargetGo, Kind: bench.ArtifactJFR}
	mustSaveArtifact(t, db, run.ID, recording, []byte("12345678"))
	zero := 0
	err := db.SaveArtifact(ctx, run.ID, bench.Artifact{Target: bench.TargetGo, Stage: &zero, Kind: bench.ArtifactFolded, Bytes: 3}, strings.NewReader("abc"))
	if got := bench.ErrorCode(err); got != bench.ECONFLICT {
		t.Errorf("a file past the run's bound: code %q, want %q (%v)", got, bench.ECONFLICT, err)
	}
	mustSaveArtifact(t, db, run.ID, recording, []byte("0123456789"))
}

// failingReader fails at once.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk gone") }

func mustSaveArtifact(t *testing.T, db interface {
	SaveArtifact(context.Context, string, bench.Artifact, io.Reader) error
}, runID string, a bench.Artifact, data []byte) {
	t.Helper()
	a.Bytes = int64(len(data))
	if err := db.SaveArtifact(context.Background(), runID, a, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}
