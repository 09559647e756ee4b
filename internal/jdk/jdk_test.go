package jdk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// fakeJDK makes a directory that looks like a JDK: a release file with the
// given version and vendor, and empty executables for each tool.
func fakeJDK(t *testing.T, name, version, vendor string, tools ...string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	release := "JAVA_VERSION=\"" + version + "\"\n"
	if vendor != "" {
		release = "IMPLEMENTOR=\"" + vendor + "\"\n" + release
	}
	if err := os.WriteFile(filepath.Join(home, "release"), []byte(release), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if err := os.WriteFile(filepath.Join(home, "bin", tool), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// fullJDK is a fakeJDK with javac, jlink and java.
func fullJDK(t *testing.T, name, version string) string {
	return fakeJDK(t, name, version, "Eclipse Adoptium", "java", "javac", "jlink")
}

func TestFindIn(t *testing.T) {
	jdk17 := fullJDK(t, "jdk-17", "17.0.15")
	jdk21 := fullJDK(t, "jdk-21", "21.0.7")
	jdk25 := fullJDK(t, "jdk-25", "25.0.3")
	jdk25patch := fullJDK(t, "jdk-25.0.10", "25.0.10")
	jre25 := fakeJDK(t, "jre-25", "25.0.3", "Eclipse Adoptium", "java")
	nojlink := fakeJDK(t, "nojlink-25", "25.0.3", "", "java", "javac")
	notJDK := t.TempDir()

	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"newest major wins whatever the order", []string{jdk21, jdk25, jdk17}, jdk25},
		{"17 is ignored", []string{jdk17, jdk21}, jdk21},
		{"patch release compared numerically", []string{jdk25, jdk25patch}, jdk25patch},
		{"JRE without javac skipped", []string{jre25, jdk21}, jdk21},
		{"JDK without jlink skipped", []string{nojlink, jdk21}, jdk21},
		{"non-JDK directories and missing paths skipped", []string{notJDK, "/does/not/exist", jdk25}, jdk25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jdk.FindIn(tt.candidates)
			if err != nil {
				t.Fatal(err)
			}
			if got.Home != tt.want {
				t.Errorf("Home = %s, want %s", got.Home, tt.want)
			}
		})
	}
}

func TestFindIn_ReadsRelease(t *testing.T) {
	home := fullJDK(t, "jdk", "25.0.3")
	got, err := jdk.FindIn([]string{home})
	if err != nil {
		t.Fatal(err)
	}
	want := jdk.JDK{Home: home, Version: "25.0.3", Major: 25, Vendor: "Eclipse Adoptium"}
	if got != want {
		t.Errorf("FindIn = %+v, want %+v", got, want)
	}
}

func TestFindIn_Majors(t *testing.T) {
	tests := []struct {
		version string
		major   int
	}{
		{"21", 21},       // a GA release with no update number
		{"22-ea", 22},    // an early-access build
		{"25.0.3", 25},   // the usual form
		{"1.8.0_402", 8}, // the pre-9 scheme, too old
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			home := fullJDK(t, "jdk", tt.version)
			got, err := jdk.FindIn([]string{home})
			if tt.major < jdk.MinMajor {
				if err == nil {
					t.Fatalf("FindIn accepted JDK %s", tt.version)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Major != tt.major {
				t.Errorf("Major = %d, want %d", got.Major, tt.major)
			}
		})
	}
}

func TestFindIn_ErrNone(t *testing.T) {
	jdk17 := fullJDK(t, "java-17-openjdk-amd64", "17.0.15")
	link := filepath.Join(t.TempDir(), "java-1.17.0-openjdk-amd64")
	if err := os.Symlink(jdk17, link); err != nil {
		t.Fatal(err)
	}
	jre25 := fakeJDK(t, "jre-25", "25.0.3", "", "java")

	_, err := jdk.FindIn([]string{jdk17, link, jre25})
	if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
		t.Fatalf("ErrorCode = %q, want %q (err: %v)", got, want, err)
	}
	msg := bench.ErrorMessage(err)
	for _, want := range []string{"JDK 17.0.15 at " + jdk17, jre25 + " has no bin/javac", "set JAVA_HOME"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
	if got := strings.Count(msg, "17.0.15"); got != 1 {
		t.Errorf("message names JDK 17 %d times, want once (symlink deduplicated): %s", got, msg)
	}
}

func TestFindIn_ErrEmpty(t *testing.T) {
	_, err := jdk.FindIn(nil)
	if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
		t.Fatalf("ErrorCode = %q, want %q", got, want)
	}
}

func TestFind_JavaHome(t *testing.T) {
	jdk21 := fullJDK(t, "jdk-21", "21.0.7")
	jdk25 := fullJDK(t, "jdk-25", "25.0.3")
	jdk17 := fullJDK(t, "jdk-17", "17.0.15")

	tests := []struct {
		name     string
		javaHome string
		want     string
	}{
		{"JAVA_HOME 21+ preferred over a newer JDK", jdk21, jdk21},
		{"JAVA_HOME too old falls back to the newest", jdk17, jdk25},
		{"JAVA_HOME not a JDK falls back", "/does/not/exist", jdk25},
		{"JAVA_HOME unset", "", jdk25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jdk.FindWith(tt.javaHome, []string{jdk17, jdk25})
			if err != nil {
				t.Fatal(err)
			}
			if got.Home != tt.want {
				t.Errorf("Home = %s, want %s", got.Home, tt.want)
			}
		})
	}
}

func TestFind_JavaHomeNamedInError(t *testing.T) {
	jdk17 := fullJDK(t, "jdk-17", "17.0.15")
	_, err := jdk.FindWith(jdk17, nil)
	if !strings.Contains(bench.ErrorMessage(err), jdk17) {
		t.Errorf("error %q does not name JAVA_HOME %s", err, jdk17)
	}
}

// TestFind_Host checks the real lookup on this machine agrees with what Find
// promises: whatever it returns is a JDK 21+ with javac and jlink.
func TestFind_Host(t *testing.T) {
	got, err := jdk.Find()
	if err != nil {
		if bench.ErrorCode(err) != bench.EUNAVAILABLE {
			t.Fatalf("Find error code = %q, want %q: %v", bench.ErrorCode(err), bench.EUNAVAILABLE, err)
		}
		t.Skipf("no JDK 21+ on this host: %v", err)
	}
	if got.Major < jdk.MinMajor {
		t.Errorf("Find returned %v, older than %d", got, jdk.MinMajor)
	}
	for _, tool := range []string{"javac", "jlink"} {
		if _, err := os.Stat(got.Tool(tool)); err != nil {
			t.Errorf("Find returned %v without %s: %v", got, tool, err)
		}
	}
}

func TestFindMajorIn(t *testing.T) {
	jdk17 := fullJDK(t, "jdk-17", "17.0.15")
	jdk21 := fullJDK(t, "jdk-21", "21.0.7")
	jdk21patch := fullJDK(t, "jdk-21.0.9", "21.0.9")
	jdk25 := fullJDK(t, "jdk-25", "25.0.3")
	jre21 := fakeJDK(t, "jre-21", "21.0.9", "", "java")

	tests := []struct {
		name       string
		major      int
		candidates []string
		want       string
	}{
		{"the major asked for, not the newest", 21, []string{jdk25, jdk21, jdk17}, jdk21},
		{"newest update of that major", 21, []string{jdk21, jdk21patch}, jdk21patch},
		{"a JRE of that major skipped", 21, []string{jre21, jdk21}, jdk21},
		{"older than MinMajor, if asked for", 17, []string{jdk25, jdk17}, jdk17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jdk.FindMajorIn(tt.major, tt.candidates)
			if err != nil {
				t.Fatal(err)
			}
			if got.Home != tt.want {
				t.Errorf("Home = %s, want %s", got.Home, tt.want)
			}
		})
	}
}

func TestFindMajorIn_ErrNone(t *testing.T) {
	jdk17 := fullJDK(t, "jdk-17", "17.0.15")
	jdk25 := fullJDK(t, "jdk-25", "25.0.3")

	_, err := jdk.FindMajorIn(21, []string{jdk17, jdk25})
	if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
		t.Fatalf("ErrorCode = %q, want %q (err: %v)", got, want, err)
	}
	msg := bench.ErrorMessage(err)
	for _, want := range []string{"no JDK 21 found", "JDK 25.0.3 at " + jdk25 + " is not a 21", "install a JDK 21 "} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
}

func TestFindMajor_JavaHome(t *testing.T) {
	jdk21 := fullJDK(t, "jdk-21", "21.0.7")
	jdk21patch := fullJDK(t, "jdk-21.0.9", "21.0.9")
	jdk25 := fullJDK(t, "jdk-25", "25.0.3")

	tests := []struct {
		name     string
		javaHome string
		want     string
	}{
		{"JAVA_HOME of that major preferred over a newer update", jdk21, jdk21},
		{"JAVA_HOME of another major passed over", jdk25, jdk21patch},
		{"JAVA_HOME unset", "", jdk21patch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jdk.FindMajorWith(tt.javaHome, []string{jdk25, jdk21patch}, 21)
			if err != nil {
				t.Fatal(err)
			}
			if got.Home != tt.want {
				t.Errorf("Home = %s, want %s", got.Home, tt.want)
			}
		})
	}
}

func TestParseRelease(t *testing.T) {
	props := jdk.ParseRelease([]byte("JAVA_VERSION=\"21.0.8\"\nMODULES=\"java.base jdk.jfr\"\n\nnot a property\n"))
	if got, want := props["JAVA_VERSION"], "21.0.8"; got != want {
		t.Errorf("JAVA_VERSION = %q, want %q", got, want)
	}
	if got, want := props["MODULES"], "java.base jdk.jfr"; got != want {
		t.Errorf("MODULES = %q, want %q", got, want)
	}
	if got := jdk.FeatureRelease(props["JAVA_VERSION"]); got != 21 {
		t.Errorf("FeatureRelease(%q) = %d, want 21", props["JAVA_VERSION"], got)
	}
}
