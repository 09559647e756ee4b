// Package jdk finds a JDK on the host: the Java targets need one 21 or newer
// to build the jar (javac, via Maven), and one of the base image's major to
// assemble that image (jlink).
package jdk

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// MinMajor is the oldest JDK the Java targets accept: virtual threads are
// final since 21.
const MinMajor = 21

// JVMDir is where Debian-style systems install JDKs, one directory each.
const JVMDir = "/usr/lib/jvm"

// JDK is a Java Development Kit found on the host.
type JDK struct {
	Home    string // installation directory, holding bin/ and the release file
	Version string // JAVA_VERSION from the release file, e.g. "25.0.3"
	Major   int    // feature release, e.g. 25
	Vendor  string // IMPLEMENTOR from the release file, e.g. "Eclipse Adoptium"; may be empty
}

// String returns a short description such as "JDK 25.0.3 (Eclipse Adoptium) at /usr/lib/jvm/x".
func (j JDK) String() string {
	if j.Vendor == "" {
		return fmt.Sprintf("JDK %s at %s", j.Version, j.Home)
	}
	return fmt.Sprintf("JDK %s (%s) at %s", j.Version, j.Vendor, j.Home)
}

// Tool returns the path of one of the JDK's executables, e.g. Tool("jlink").
func (j JDK) Tool(name string) string {
	return filepath.Join(j.Home, "bin", name)
}

// Find returns the JDK to use: $JAVA_HOME if it is a JDK 21+, otherwise the
// newest JDK 21+ under /usr/lib/jvm or behind `javac` on PATH. With none it
// returns an EUNAVAILABLE *bench.Error that lists what it did find.
func Find() (JDK, error) {
	return find(os.Getenv("JAVA_HOME"), Candidates(), minimum(MinMajor))
}

// FindMajor is Find for one feature release: $JAVA_HOME if it is a JDK of
// that major, otherwise the newest JDK of that major among Candidates. The
// Java targets' base image may need an older runtime than the JDK that
// builds the jar (21 to compare with 25, say).
func FindMajor(major int) (JDK, error) {
	return find(os.Getenv("JAVA_HOME"), Candidates(), exactly(major))
}

// wanted says which JDKs a search accepts: the test, and how to say what
// it looked for and why it passed a JDK over.
type wanted struct {
	what    string           // e.g. "JDK 21 or newer"
	install string           // what to install, e.g. "a JDK 21+ (e.g. Temurin 25)"
	reject  func(JDK) string // why j will not do; "" if it will
}

// minimum accepts a JDK of major or newer.
func minimum(major int) wanted {
	return wanted{
		what:    fmt.Sprintf("JDK %d or newer", major),
		install: fmt.Sprintf("a JDK %d+ (e.g. Temurin 25)", major),
		reject: func(j JDK) string {
			if j.Major < major {
				return fmt.Sprintf("JDK %s at %s is too old", j.Version, j.Home)
			}
			return ""
		},
	}
}

// exactly accepts a JDK of that major only.
func exactly(major int) wanted {
	return wanted{
		what:    fmt.Sprintf("JDK %d", major),
		install: fmt.Sprintf("a JDK %d", major),
		reject: func(j JDK) string {
			if j.Major != major {
				return fmt.Sprintf("JDK %s at %s is not a %d", j.Version, j.Home, major)
			}
			return ""
		},
	}
}

// find is Find and FindMajor with their inputs injected, for tests.
func find(javaHome string, candidates []string, w wanted) (JDK, error) {
	if javaHome != "" {
		if j, err := inspect(javaHome); err == nil && w.reject(j) == "" {
			return j, nil
		}
		// Listed first so the error explains why JAVA_HOME was passed over.
		candidates = append([]string{javaHome}, candidates...)
	}
	return findIn(candidates, w)
}

// Candidates returns the directories Find looks at besides $JAVA_HOME: every
// entry of /usr/lib/jvm and the home of the `javac` found on PATH.
func Candidates() []string {
	var entries []string
	matches, _ := filepath.Glob(filepath.Join(JVMDir, "*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			entries = append(entries, m)
		}
	}
	if home := javacHome(); home != "" {
		entries = append(entries, home)
	}
	return entries
}

// javacHome returns the JDK home behind `javac` on PATH (through the
// /etc/alternatives symlinks), or "" if there is none.
func javacHome() string {
	javac, err := exec.LookPath("javac")
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(javac)
	if err != nil {
		return ""
	}
	return filepath.Dir(filepath.Dir(real))
}

// FindIn returns the newest JDK 21+ among candidates (directories that may or
// may not be JDKs); on a tie in version the earlier candidate wins. Symlinks
// are resolved, so a JDK reached twice counts once and Home is its real path.
// With none it returns an EUNAVAILABLE *bench.Error that lists what it did
// find.
func FindIn(candidates []string) (JDK, error) {
	return findIn(candidates, minimum(MinMajor))
}

// FindMajorIn is FindIn for JDKs of exactly the given major.
func FindMajorIn(major int, candidates []string) (JDK, error) {
	return findIn(candidates, exactly(major))
}

// findIn returns the newest JDK among candidates that w accepts.
func findIn(candidates []string, w wanted) (JDK, error) {
	var found []JDK
	var rejected []string
	seen := map[string]bool{}
	for _, dir := range candidates {
		key := realPath(dir)
		if seen[key] {
			continue
		}
		seen[key] = true
		j, err := inspect(key)
		switch {
		case err != nil:
			rejected = append(rejected, err.Error())
		case w.reject(j) != "":
			rejected = append(rejected, w.reject(j))
		default:
			found = append(found, j)
		}
	}
	if len(found) == 0 {
		return JDK{}, notFound(w, rejected)
	}
	sort.SliceStable(found, func(a, b int) bool { return newer(found[a], found[b]) })
	return found[0], nil
}

// notFound builds the error findIn returns when no candidate will do.
func notFound(w wanted, rejected []string) error {
	what := "no JDK at all"
	if len(rejected) > 0 {
		what = strings.Join(rejected, "; ")
	}
	return bench.Errorf(bench.EUNAVAILABLE,
		"no %s found (looked at $JAVA_HOME, %s/* and javac on PATH): %s; install %s or set JAVA_HOME",
		w.what, JVMDir, what, w.install)
}

// realPath resolves symlinks so that /usr/lib/jvm/java-1.17.0-openjdk-amd64
// and the java-17-openjdk-amd64 it points to count once.
func realPath(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// inspect reads the JDK at home. It fails, saying why, if home has no release
// file with a JAVA_VERSION, or lacks javac or jlink (a JRE, or a JDK without
// the tools the targets need).
func inspect(home string) (JDK, error) {
	data, err := os.ReadFile(filepath.Join(home, "release"))
	if err != nil {
		return JDK{}, fmt.Errorf("%s is not a JDK (no release file)", home)
	}
	props := ParseRelease(data)
	j := JDK{Home: home, Version: props["JAVA_VERSION"], Vendor: props["IMPLEMENTOR"]}
	if j.Major = FeatureRelease(j.Version); j.Major == 0 {
		return JDK{}, fmt.Errorf("%s has no readable JAVA_VERSION in its release file", home)
	}
	for _, tool := range []string{"javac", "jlink"} {
		if !executable(j.Tool(tool)) {
			return JDK{}, fmt.Errorf("%s has no bin/%s (Java %s: a JRE, not a JDK?)", home, tool, j.Version)
		}
	}
	return j, nil
}

// ParseRelease reads the KEY="value" lines of a JDK's or a runtime's
// release file, e.g. JAVA_VERSION, IMPLEMENTOR and MODULES.
func ParseRelease(data []byte) map[string]string {
	props := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok {
			props[key] = strings.Trim(value, `"`)
		}
	}
	return props
}

// FeatureRelease returns the major of a Java version string: 25 for
// "25.0.3", 21 for "21" or "21-ea", 8 for the old "1.8.0_402"; 0 if unreadable.
func FeatureRelease(version string) int {
	parts := versionParts(version)
	if len(parts) >= 2 && parts[0] == 1 {
		return parts[1]
	}
	if len(parts) == 0 {
		return 0
	}
	return parts[0]
}

// versionParts returns the leading dotted numbers of a version string:
// [25 0 3] for "25.0.3", [21] for "21-ea", [1 8 0] for "1.8.0_402".
func versionParts(version string) []int {
	var parts []int
	for _, field := range strings.Split(version, ".") {
		digits := field
		if i := strings.IndexFunc(field, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			digits = field[:i]
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			break
		}
		parts = append(parts, n)
		if len(digits) != len(field) {
			break
		}
	}
	return parts
}

// newer reports whether a is a later release than b.
func newer(a, b JDK) bool {
	if a.Major != b.Major {
		return a.Major > b.Major
	}
	pa, pb := versionParts(a.Version), versionParts(b.Version)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] > pb[i]
		}
	}
	return len(pa) > len(pb)
}

// executable reports whether path is a regular file with an execute bit set.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// Command runs one of a JDK's programs without the options the host's
// environment may carry for every JVM (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS,
// _JAVA_OPTIONS), which would change what it does or writes: a recording
// the host starts for its own JVMs, say.
func Command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "JAVA_TOOL_OPTIONS" && name != "JDK_JAVA_OPTIONS" && name != "_JAVA_OPTIONS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}
