package jfr_test

import (
	"archive/tar"
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/jfr"
)

// fakeDocker runs "jfr" by answering with canned output: the summary for
// `summary`, the fixture's JSON for `print`, and an exit code.
type fakeDocker struct {
	mu       sync.Mutex
	config   *container.Config
	copied   []byte // the recording copied in
	removed  []string
	exitCode int64
	stdout   map[string][]byte // by the command's first argument
	stderr   string
	conn     net.Conn // the engine's end of the attach
}

var _ jfr.Docker = (*fakeDocker)(nil)

func (f *fakeDocker) ContainerCreate(_ context.Context, o client.ContainerCreateOptions) (client.ContainerCreateResult, error) {
	f.config = o.Config
	return client.ContainerCreateResult{ID: "c1"}, nil
}

func (f *fakeDocker) CopyToContainer(_ context.Context, _ string, o client.CopyToContainerOptions) (client.CopyToContainerResult, error) {
	tr := tar.NewReader(o.Content)
	if _, err := tr.Next(); err != nil {
		return client.CopyToContainerResult{}, err
	}
	b, err := io.ReadAll(tr)
	f.copied = b
	return client.CopyToContainerResult{}, err
}

func (f *fakeDocker) ContainerAttach(context.Context, string, client.ContainerAttachOptions) (client.ContainerAttachResult, error) {
	ours, theirs := net.Pipe()
	f.conn = theirs
	return client.ContainerAttachResult{HijackedResponse: client.NewHijackedResponse(ours, "")}, nil
}

func (f *fakeDocker) ContainerStart(context.Context, string, client.ContainerStartOptions) (client.ContainerStartResult, error) {
	go func() {
		frame(f.conn, stdcopy.Stdout, f.stdout[f.config.Cmd[0]])
		frame(f.conn, stdcopy.Stderr, []byte(f.stderr))
		f.conn.Close()
	}()
	return client.ContainerStartResult{}, nil
}

// frame writes b as one frame of the engine's multiplexed stream.
func frame(w io.Writer, stream stdcopy.StdType, b []byte) {
	if len(b) == 0 {
		return
	}
	header := make([]byte, 8)
	header[0] = byte(stream)
	binary.BigEndian.PutUint32(header[4:], uint32(len(b)))
	w.Write(append(header, b...))
}

func (f *fakeDocker) ContainerWait(context.Context, string, client.ContainerWaitOptions) client.ContainerWaitResult {
	res := make(chan container.WaitResponse, 1)
	res <- container.WaitResponse{StatusCode: f.exitCode}
	return client.ContainerWaitResult{Result: res}
}

func (f *fakeDocker) ContainerRemove(_ context.Context, id string, _ client.ContainerRemoveOptions) (client.ContainerRemoveResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	return client.ContainerRemoveResult{}, nil
}

// newFakeDocker answers summary and print from testdata.
func newFakeDocker(t *testing.T) *fakeDocker {
	t.Helper()
	summary, err := os.ReadFile("testdata/summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	printed, err := os.ReadFile("testdata/pinned21.json")
	if err != nil {
		t.Fatal(err)
	}
	return &fakeDocker{stdout: map[string][]byte{"summary": summary, "print": printed}}
}

// recordingFile writes a stand-in recording.
func recordingFile(t *testing.T) string {
	t.Helper()
	path := t.TempDir() + "/r.jfr"
	if err := os.WriteFile(path, []byte("FLR\x00 a recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImageTool(t *testing.T) {
	docker := newFakeDocker(t)
	tool := jfr.ImageTool(docker, "threadbench/jre:25", map[string]string{"io.threadbench.managed": "true"})
	file := recordingFile(t)
	counts, err := tool.Counts(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if counts[jfr.TypeVirtualThreadPinned] != 248 {
		t.Errorf("counts = %v", counts)
	}
	c := docker.config
	if c.Image != "threadbench/jre:25" || !slices.Equal(c.Entrypoint, []string{"jfr"}) || c.Cmd[len(c.Cmd)-1] != "/tmp/recording.jfr" ||
		c.Labels["io.threadbench.managed"] != "true" || !slices.Contains(c.Env, "JAVA_TOOL_OPTIONS=") {
		t.Errorf("container config = %+v", c)
	}
	if string(docker.copied) != "FLR\x00 a recording" {
		t.Errorf("copied %q into the container", docker.copied)
	}

	events, err := tool.Print(context.Background(), file, 6, jfr.Types...)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 9 {
		t.Errorf("%d events, want the fixture's 9", len(events))
	}
	if got := strings.Join(docker.config.Cmd, " "); !strings.Contains(got, "print --json --stack-depth 6 --events jdk.VirtualThreadPinned,") {
		t.Errorf("command = %s", got)
	}
	if len(docker.removed) != 2 {
		t.Errorf("removed %v, want both containers", docker.removed)
	}
}

func TestImageToolFails(t *testing.T) {
	docker := newFakeDocker(t)
	docker.exitCode, docker.stderr = 1, "jfr print: could not open file"
	docker.stdout = map[string][]byte{}
	_, err := jfr.ImageTool(docker, "img", nil).Print(context.Background(), recordingFile(t), 64, jfr.Types...)
	if err == nil || !strings.Contains(err.Error(), "jfr exited with 1: jfr print: could not open file") {
		t.Errorf("Print() error = %v, want the tool's exit and its standard error", err)
	}
	if len(docker.removed) != 1 {
		t.Errorf("removed %v, want the container removed after a failure", docker.removed)
	}
}
