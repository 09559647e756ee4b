package vegeta

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// Results file formats: vegeta's own encodings, which vegeta report, plot
// and encode read.
const (
	FormatGob  = "gob"
	FormatJSON = "json"
	FormatCSV  = "csv"
)

// ResultsFormats lists the formats, the default first.
var ResultsFormats = []string{FormatGob, FormatJSON, FormatCSV}

// resultsBuffer is how many results may wait for the encoder before the
// engine that sends them waits for it: a few seconds at the rates a
// generator reaches, so that a slow disk never paces the attack.
const resultsBuffer = 1 << 16

// ResultsFiles writes every measured request of a run in vegeta's results
// encoding, a file per target: Path with the target's key before its
// extension ("results.gob" holds go's in "results.go.gob").
type ResultsFiles struct {
	Path   string
	Format string // FormatGob when empty
}

var _ bench.ResponseLog = ResultsFiles{}

// CheckResultsFormat refuses a format vegeta does not encode, naming the
// flag or field.
func CheckResultsFormat(format, field string) error {
	if format != "" && !slices.Contains(ResultsFormats, format) {
		return bench.FieldErrorf(field, "must be one of %s, got %q", strings.Join(ResultsFormats, ", "), format)
	}
	return nil
}

// ForPart returns the files of one part of an experiment run a part at a
// time: the part's name before the extension (results.callee-200.gob), so
// that each part's files are kept; f itself for any other run.
func (f ResultsFiles) ForPart(spec bench.RunSpec) ResultsFiles {
	if spec.Experiment == nil || spec.Experiment.Part == "" {
		return f
	}
	ext := filepath.Ext(f.Path)
	f.Path = strings.TrimSuffix(f.Path, ext) + "." + spec.Experiment.Part + ext
	return f
}

// FileFor returns the file of a target's results.
func (f ResultsFiles) FileFor(target string) string {
	ext := filepath.Ext(f.Path)
	return strings.TrimSuffix(f.Path, ext) + "." + target + ext
}

// Open creates the file of a target of a run of spec (one of its part's,
// ForPart) and starts its encoder.
func (f ResultsFiles) Open(spec bench.RunSpec, target string) (bench.ResponseWriter, error) {
	if err := CheckResultsFormat(f.Format, "results-format"); err != nil {
		return nil, err
	}
	path := f.ForPart(spec).FileFor(target)
	file, err := os.Create(path)
	if err != nil {
		return nil, bench.Errorf(bench.EINVALID, "results file: %v", err)
	}
	w := &resultsWriter{file: file, buf: bufio.NewWriterSize(file, 1<<16), queue: make(chan bench.Response, resultsBuffer)}
	w.enc = encoderFor(f.Format, w.buf)
	w.wg.Go(w.encode)
	return w, nil
}

func encoderFor(format string, w *bufio.Writer) vegeta.Encoder {
	switch format {
	case FormatJSON:
		return vegeta.NewJSONEncoder(w)
	case FormatCSV:
		return vegeta.NewCSVEncoder(w)
	}
	return vegeta.NewEncoder(w)
}

// resultsWriter encodes one target's results on a goroutine of its own, so
// that the engine's sending goroutines only hand them over.
type resultsWriter struct {
	file  *os.File
	buf   *bufio.Writer
	enc   vegeta.Encoder
	queue chan bench.Response
	wg    sync.WaitGroup
	err   error // the first encoding error; later results are dropped
}

// Write queues a response for the encoder.
func (w *resultsWriter) Write(r bench.Response) { w.queue <- r }

func (w *resultsWriter) encode() {
	for r := range w.queue {
		if w.err != nil {
			continue
		}
		res := Result(r)
		w.err = w.enc.Encode(&res)
	}
}

// Close encodes what is queued, flushes and closes the file.
func (w *resultsWriter) Close() error {
	close(w.queue)
	w.wg.Wait()
	err := w.err
	if ferr := w.buf.Flush(); err == nil {
		err = ferr
	}
	if cerr := w.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("results file %s: %w", w.file.Name(), err)
	}
	return nil
}

// Result is a response as vegeta's results record it. A response's error
// is vegeta's too: the status line of a code below 200 or from 400.
func Result(r bench.Response) vegeta.Result {
	return vegeta.Result{
		Attack: attackName, Seq: r.Seq, Code: uint16(r.Code), Timestamp: r.Timestamp, Latency: r.Latency,
		BytesOut: uint64(r.BytesOut), BytesIn: uint64(r.BytesIn), Error: r.Error, Method: r.Method, URL: r.URL,
	}
}
