package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/threadbench/threadbench/api"
	"github.com/threadbench/threadbench/internal/bench"
)

// filesEnv serves a run whose target go keeps a profile and folded stacks
// of stage 0, and whose java-virtual keeps a recording.
func filesEnv(t *testing.T) *env {
	e := newEnv(t)
	zero := 0
	files := map[string][]byte{
		"targets/go/stages/0/profile.pb.gz":  {0x1f, 0x8b, 1, 2, 3},
		"targets/go/stages/0/stacks.folded":  []byte("main;work 3\n"),
		"targets/java-virtual/recording.jfr": []byte("FLR\x00recording"),
		"targets/java-virtual/threads.txt":   []byte("P\t500\t25\n"),
	}
	e.store.FindRunByIDFn = func(_ ctxT, id string) (*bench.Run, error) {
		if id != "r1" {
			return nil, notFound(id)
		}
		run := sampleRun(id, bench.RunSucceeded)
		jv := run.Targets[0]
		jv.Target = bench.TargetJavaVirtual
		run.Targets = append(run.Targets, jv)
		return run, nil
	}
	e.store.ArtifactsFn = func(_ ctxT, id string) ([]bench.Artifact, error) {
		if id != "r1" {
			return nil, notFound(id)
		}
		return []bench.Artifact{{Target: "go", Stage: &zero, Kind: bench.ArtifactPprof, Bytes: 5},
			{Target: "go", Stage: &zero, Kind: bench.ArtifactFolded, Bytes: 12},
			{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactJFR, Bytes: 13},
			{Target: bench.TargetJavaVirtual, Kind: bench.ArtifactThreads, Bytes: 9}}, nil
	}
	e.store.WriteArtifactFn = func(_ ctxT, id string, a bench.Artifact, w io.Writer) error {
		b, ok := files[a.Path()]
		if !ok {
			return bench.Errorf(bench.ENOTFOUND, "no %s", a.Path())
		}
		_, err := w.Write(b)
		return err
	}
	return e
}

func TestListFiles(t *testing.T) {
	e := filesEnv(t)
	req := e.newRequest(t, "GET", "/runs/r1/files", "")
	resp := e.send(t, req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, resp.body)
	}
	conforms(t, req, resp)
	list := decode[api.FileList](t, resp)
	if len(list.Files) != 4 || list.Files[3].Path != "targets/java-virtual/threads.txt" || list.Files[2].Path != "targets/java-virtual/recording.jfr" {
		t.Errorf("files %+v", list.Files)
	}
}

func TestGetFiles(t *testing.T) {
	tests := []struct {
		name, path  string
		status      int
		contentType string
		body        []byte
	}{
		{"a recording", "/runs/r1/targets/java-virtual/recording.jfr", 200, "application/octet-stream", []byte("FLR\x00recording")},
		{"a stage's profile", "/runs/r1/targets/go/stages/0/profile.pb.gz", 200, "application/octet-stream", []byte{0x1f, 0x8b, 1, 2, 3}},
		{"a stage's folded stacks", "/runs/r1/targets/go/stages/0/stacks.folded", 200, "text/plain; charset=utf-8", []byte("main;work 3\n")},
		{"a JVM's thread samples", "/runs/r1/targets/java-virtual/threads.txt", 200, "text/plain; charset=utf-8", []byte("P\t500\t25\n")},
		{"thread samples are not a stage's", "/runs/r1/targets/java-virtual/stages/0/threads.txt", 400, "", nil},
		{"a target without a recording", "/runs/r1/targets/go/recording.jfr", 404, "", nil},
		{"a stage without a file", "/runs/r1/targets/go/stages/1/stacks.folded", 404, "", nil},
		{"a target the run has not", "/runs/r1/targets/orders/recording.jfr", 404, "", nil},
		{"a path for a target", "/runs/r1/targets/..%2F..%2Fetc/recording.jfr", 404, "", nil},
		{"an unknown run", "/runs/r2/targets/go/recording.jfr", 404, "", nil},
		{"a file of no known kind", "/runs/r1/targets/go/stages/0/passwd", 400, "", nil},
		{"a stage that is no number", "/runs/r1/targets/go/stages/x/stacks.folded", 400, "", nil},
		{"the largest stage the contract allows", "/runs/r1/targets/go/stages/2147483647/stacks.folded", 404, "", nil},
		{"a stage past the contract's largest", "/runs/r1/targets/go/stages/2147483648/stacks.folded", 400, "", nil},
		{"a stage past any integer", "/runs/r1/targets/go/stages/17704600067566810955776/stacks.folded", 400, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := filesEnv(t)
			req := e.newRequest(t, "GET", tt.path, "")
			resp := e.send(t, req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, resp.body)
			}
			if tt.status != 200 {
				problem(t, resp, tt.status)
				return
			}
			conforms(t, req, resp)
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if !bytes.Equal(resp.body, tt.body) {
				t.Errorf("body %q, want %q", resp.body, tt.body)
			}
			if cd := resp.Header.Get("Content-Disposition"); cd == "" {
				t.Error("no Content-Disposition")
			}
		})
	}
}
