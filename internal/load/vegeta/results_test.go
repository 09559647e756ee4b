package vegeta_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	vegetalib "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/load/vegeta"
)

func TestResultsFileFor(t *testing.T) {
	for _, tt := range []struct{ path, target, want string }{
		{"out/results.gob", "go", "out/results.go.gob"},           // before the extension
		{"results", "java-virtual@21", "results.java-virtual@21"}, // none: appended
		{"r.csv", "go#2", "r.go#2.csv"},                           // a round's key
	} {
		if got := (vegeta.ResultsFiles{Path: tt.path}).FileFor(tt.target); got != tt.want {
			t.Errorf("FileFor(%q, %q) = %q, want %q", tt.path, tt.target, got, tt.want)
		}
	}
	// Each part of an experiment run a part at a time keeps its files.
	files := vegeta.ResultsFiles{Path: "out/results.gob"}
	part := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-001", Part: "callee-200"}}
	whole := bench.RunSpec{Experiment: &bench.ExperimentRef{Name: "seed-003"}}
	if got := files.ForPart(part).FileFor("go"); got != "out/results.callee-200.go.gob" {
		t.Errorf("a part's file %q, want out/results.callee-200.go.gob", got)
	}
	if got := files.ForPart(whole).FileFor("go"); got != "out/results.go.gob" {
		t.Errorf("a one-run experiment's file %q, want out/results.go.gob", got)
	}
}

// decoders read each format back with vegeta's own decoders.
var decoders = map[string]func(io.Reader) vegetalib.Decoder{
	vegeta.FormatGob:  vegetalib.NewDecoder,
	vegeta.FormatJSON: vegetalib.NewJSONDecoder,
	vegeta.FormatCSV:  vegetalib.NewCSVDecoder,
}

// TestResultsFilesReadByVegeta: each engine's results, in each format,
// read back by vegeta's decoders, give vegeta's metrics the request count
// and successes the run measured.
func TestResultsFilesReadByVegeta(t *testing.T) {
	t.Parallel() // at most 400 req/s, asleep: see openPlan
	srv := newServer(t, time.Millisecond)
	plan := openPlan(light, bench.Request{Endpoint: "cpu", Weight: 1})
	plan.Profile.Stages = plan.Profile.Stages[:1]
	engines := map[string]bench.Attacker{"own": load.NewEngine(), "vegeta": vegeta.NewEngine(load.NewEngine())}
	for name, engine := range engines {
		for format, decoder := range decoders {
			t.Run(name+"/"+format, func(t *testing.T) {
				files := vegeta.ResultsFiles{Path: filepath.Join(t.TempDir(), "results."+format), Format: format}
				w, err := files.Open(bench.RunSpec{}, "go")
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Run(context.Background(), srv.URL, plan, bench.Observer{Response: w.Write})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				m := readMetrics(t, files.FileFor("go"), decoder)
				if got, want := m.Requests, uint64(res.Total.Requests); got != want || got == 0 {
					t.Errorf("vegeta reads %d requests, the run measured %d", got, want)
				}
				if got, want := m.Success, float64(res.Total.Successes)/float64(res.Total.Requests); got != want {
					t.Errorf("vegeta's success ratio %v, the run's %v", got, want)
				}
				if got, want := m.StatusCodes["500"], int(res.Total.StatusCodes["500"]); got != want || got == 0 {
					t.Errorf("vegeta reads %d 500s, the run measured %d", got, want)
				}
			})
		}
	}
}

func readMetrics(t *testing.T, path string, decoder func(io.Reader) vegetalib.Decoder) vegetalib.Metrics {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := decoder(f)
	var m vegetalib.Metrics
	for {
		var r vegetalib.Result
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		m.Add(&r)
	}
	m.Close()
	return m
}

// BenchmarkResultsWrite is what a results file costs per request: handing
// it over and encoding it (on the encoder's goroutine, same CPUs).
func BenchmarkResultsWrite(b *testing.B) {
	for _, format := range vegeta.ResultsFormats {
		b.Run(format, func(b *testing.B) {
			w, err := vegeta.ResultsFiles{Path: filepath.Join(b.TempDir(), "r"), Format: format}.Open(bench.RunSpec{}, "go")
			if err != nil {
				b.Fatal(err)
			}
			r := bench.Response{Method: "GET", URL: "http://127.0.0.1:8080/api/heavy?duration=5", Timestamp: time.Now(),
				Latency: 5 * time.Millisecond, Code: 200, BytesIn: 80}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r.Seq = uint64(i)
				w.Write(r)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
