package jrebase_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// fakeClient is a jrebase.Client whose methods are function fields.
type fakeClient struct {
	inspect   func(ref string) (client.ImageInspectResult, error)
	importImg func(source client.ImageImportSource, ref string, opts client.ImageImportOptions) (client.ImageImportResult, error)
}

var _ jrebase.Client = (*fakeClient)(nil)

func (f *fakeClient) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (client.ImageInspectResult, error) {
	return f.inspect(ref)
}

func (f *fakeClient) ImageImport(_ context.Context, source client.ImageImportSource, ref string, opts client.ImageImportOptions) (client.ImageImportResult, error) {
	if f.importImg == nil {
		return nil, errors.New("unexpected ImageImport")
	}
	return f.importImg(source, ref, opts)
}

func TestRef(t *testing.T) {
	temurin := jdk.JDK{Home: "/usr/lib/jvm/temurin-25-jdk-amd64", Version: "25.0.3", Major: 25, Vendor: "Eclipse Adoptium"}
	ref := jrebase.Ref(temurin)
	if !regexp.MustCompile(`^threadbench/jre:25\.0\.3-[0-9a-f]{8}$`).MatchString(ref) {
		t.Errorf("Ref = %q, want threadbench/jre:25.0.3-<8 hex digits>", ref)
	}
	if got := jrebase.Ref(temurin); got != ref {
		t.Errorf("Ref not stable: %q then %q", ref, got)
	}
	moved := temurin
	moved.Home = "/opt/jdk-25"
	if got := jrebase.Ref(moved); got != ref {
		t.Errorf("Ref depends on where the JDK is installed: %q vs %q", got, ref)
	}

	tests := []struct {
		name string
		jdk  jdk.JDK
	}{
		{"another update", jdk.JDK{Version: "25.0.4", Major: 25, Vendor: "Eclipse Adoptium"}},
		{"another vendor", jdk.JDK{Version: "25.0.3", Major: 25, Vendor: "Oracle Corporation"}},
		{"build suffix", jdk.JDK{Version: "21.0.2+13", Major: 21}},
		{"no version", jdk.JDK{Major: 21}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jrebase.Ref(tt.jdk)
			if got == ref {
				t.Errorf("Ref = %q, same as for %v", got, temurin)
			}
			if _, err := reference.ParseNormalizedNamed(got); err != nil {
				t.Errorf("Ref = %q is not a valid image reference: %v", got, err)
			}
		})
	}
}

func TestModules(t *testing.T) {
	for _, m := range []string{"java.base", "java.security.jgss", "java.management", "jdk.unsupported"} {
		if !slices.Contains(jrebase.Modules, m) {
			t.Errorf("Modules lacks %s", m)
		}
	}
}

func TestEnsure_Present(t *testing.T) {
	j := jdk.JDK{Home: "/nonexistent", Version: "25.0.3", Major: 25}
	var inspected string
	cli := &fakeClient{inspect: func(ref string) (client.ImageInspectResult, error) {
		inspected = ref
		return client.ImageInspectResult{}, nil
	}}
	got, err := jrebase.Ensure(context.Background(), cli, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := jrebase.Ref(j); got != want || inspected != want {
		t.Errorf("Ensure = %q after inspecting %q, want %q", got, inspected, want)
	}
}

func TestEnsure_ErrInspect(t *testing.T) {
	j := jdk.JDK{Home: "/nonexistent", Version: "25.0.3", Major: 25}
	engineDown := errors.New("Cannot connect to the Docker daemon")
	cli := &fakeClient{inspect: func(string) (client.ImageInspectResult, error) {
		return client.ImageInspectResult{}, engineDown
	}}
	_, err := jrebase.Ensure(context.Background(), cli, j, nil)
	if !errors.Is(err, engineDown) {
		t.Errorf("Ensure error = %v, want it to wrap %v", err, engineDown)
	}
}

func TestEnsure_ErrSteps(t *testing.T) {
	tests := []struct {
		name    string
		java    string // script standing in for bin/java; "" for none
		jlink   string // script standing in for bin/jlink
		wantErr []string
	}{
		{"no java", "", "", []string{"list modules"}},
		{"jlink fails", "#!/bin/sh\necho java.base@25\n",
			"#!/bin/sh\necho 'Error: cannot write to output' >&2\nexit 1\n",
			[]string{"jlink", "Error: cannot write to output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := jdk.JDK{Home: t.TempDir(), Version: "25.0.3", Major: 25}
			writeScript(t, j.Tool("java"), tt.java)
			writeScript(t, j.Tool("jlink"), tt.jlink)
			cli := &fakeClient{inspect: func(string) (client.ImageInspectResult, error) {
				return client.ImageInspectResult{}, cerrdefs.ErrNotFound
			}}
			_, err := jrebase.Ensure(context.Background(), cli, j, nil)
			t.Log(err)
			for _, want := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Ensure error = %v, want one containing %q", err, want)
				}
			}
		})
	}
}

// writeScript writes an executable script at path, unless script is "".
func writeScript(t *testing.T, path, script string) {
	t.Helper()
	if script == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// importedImage is what a fake engine received from Ensure.
type importedImage struct {
	ref     string
	changes []string
	headers map[string]*tar.Header
	files   map[string][]byte // contents of the files under etc/
}

// recordingClient fakes an engine without the image that records what Ensure
// imports, then answers with engineReply.
func recordingClient(t *testing.T, got *importedImage, engineReply string) *fakeClient {
	return &fakeClient{
		inspect: func(string) (client.ImageInspectResult, error) {
			return client.ImageInspectResult{}, cerrdefs.ErrNotFound
		},
		importImg: func(source client.ImageImportSource, ref string, opts client.ImageImportOptions) (client.ImageImportResult, error) {
			if source.SourceName != "-" {
				t.Errorf("SourceName = %q, want -", source.SourceName)
			}
			got.ref, got.changes = ref, opts.Changes
			got.headers, got.files = readTar(t, source.Source)
			return io.NopCloser(strings.NewReader(engineReply)), nil
		},
	}
}

// readTar returns the headers of a tar stream by name, and the contents of its files under etc/.
func readTar(t *testing.T, r io.Reader) (map[string]*tar.Header, map[string][]byte) {
	headers, files := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return headers, files
		} else if err != nil {
			t.Fatalf("read rootfs tar: %v", err)
		}
		headers[hdr.Name] = hdr
		if strings.HasPrefix(hdr.Name, "etc/") {
			var buf bytes.Buffer
			io.Copy(&buf, tr)
			files[hdr.Name] = buf.Bytes()
		}
	}
}

// hostJDK returns the host's JDK 21+, skipping the test in -short mode or without one.
func hostJDK(t *testing.T) jdk.JDK {
	t.Helper()
	if testing.Short() {
		t.Skip("assembling a runtime takes ~15 s")
	}
	j, err := jdk.Find()
	if err != nil {
		t.Skipf("no JDK 21+: %v", err)
	}
	return j
}

func TestEnsure_Assembles(t *testing.T) {
	j := hostJDK(t)
	var got importedImage
	cli := recordingClient(t, &got, `{"status":"sha256:0123"}`+"\n")
	var log bytes.Buffer
	ref, err := jrebase.Ensure(context.Background(), cli, j, &log)
	if err != nil {
		t.Fatalf("Ensure: %v\nlog:\n%s", err, log.String())
	}
	if ref != jrebase.Ref(j) || got.ref != ref {
		t.Errorf("Ensure = %q, imported as %q, want %q", ref, got.ref, jrebase.Ref(j))
	}

	for _, want := range []string{"ENV JAVA_HOME=/opt/java/openjdk", "ENV PATH=/opt/java/openjdk/bin:/usr/bin:/bin", `LABEL io.threadbench.jdk.version="` + j.Version + `"`} {
		if !slices.Contains(got.changes, want) {
			t.Errorf("changes %q lack %q", got.changes, want)
		}
	}
	checkRootfs(t, got)
	if !strings.Contains(log.String(), "jlink") {
		t.Errorf("log does not mention jlink:\n%s", log.String())
	}
}

// checkRootfs checks the files a JVM needs to start in an image with nothing else.
func checkRootfs(t *testing.T, got importedImage) {
	t.Helper()
	wantModes := map[string]int64{
		"opt/java/openjdk/bin/java":                    0o755,
		"opt/java/openjdk/lib/server/libjvm.so":        0o644,
		"opt/java/openjdk/lib/libjli.so":               0o644,
		"lib64/ld-linux-x86-64.so.2":                   0o755,
		"tmp/":                                         0o1777,
		"etc/passwd":                                   0o644,
		"opt/java/openjdk/lib/security/cacerts":        0o644,
		"opt/java/openjdk/lib/server/classes.jsa":      0o644,
		"opt/java/openjdk/lib/modules":                 0o644,
		"opt/java/openjdk/conf/security/java.security": 0o644,
	}
	for name, mode := range wantModes {
		hdr, ok := got.headers[name]
		if !ok {
			t.Errorf("rootfs lacks %s", name)
			continue
		}
		if hdr.Mode&0o7000 != mode&0o7000 || hdr.Mode&0o111 != mode&0o111 {
			t.Errorf("%s mode = %o, want %o", name, hdr.Mode, mode)
		}
	}
	var libc bool
	for name, hdr := range got.headers {
		if hdr.Typeflag == tar.TypeSymlink && !strings.HasPrefix(name, "opt/") {
			t.Errorf("%s is a symlink to %s; host libraries must be copied as files", name, hdr.Linkname)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 {
			t.Errorf("%s owned by %d:%d, want root", name, hdr.Uid, hdr.Gid)
		}
		libc = libc || strings.HasSuffix(name, "/libc.so.6") && hdr.Typeflag == tar.TypeReg
	}
	if !libc {
		t.Error("rootfs has no libc.so.6")
	}
	if !bytes.Contains(got.files["etc/passwd"], []byte("nobody:x:65534:")) {
		t.Errorf("etc/passwd = %q, want a nobody entry", got.files["etc/passwd"])
	}
}
