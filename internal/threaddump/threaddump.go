// Package threaddump samples where a JVM's threads are, on the wall
// clock, virtual threads included: a Java agent (sampler/Sampler.java)
// that the environment adds takes a thread dump of its JVM every period
// (HotSpotDiagnosticMXBean.dumpThreads, JDK 21 and later, which lists
// virtual threads with their stacks whether mounted or parked; JFR records
// no park of a virtual thread, which unmounts instead) and writes the
// threads it saw grouped by stack. Parse reads that file; Events turns it
// into events the diagnosis reads as it reads JFR's.
package threaddump

import (
	"archive/zip"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/jdk"
)

//go:embed sampler/Sampler.java
var samplerSource []byte

// samplerClass is the class the sampler's source declares.
const samplerClass = "Sampler"

// program is the sampler as a host JDK compiles it: for Java 17, so that
// a JVM of 17 or later loads it (before 21 it samples platform threads
// only), since an agent a JVM cannot load stops it from starting.
var program = jdk.Program{Name: "thread-sampler", Sources: map[string][]byte{samplerClass + ".java": samplerSource},
	Main: samplerClass, Options: []string{"--release", "17"}}

// JarName is the sampler's jar file name, in the cache and in a target.
const JarName = "threadbench-sampler.jar"

// Path is where the sampler writes inside the target's container.
const Path = "/tmp/threadbench-threads.txt"

// ContainerDir is where the sampler's jar is copied in a target's
// container before it starts.
const ContainerDir = "/threadbench"

// DefaultPeriod is how often at most the sampler takes a dump: once a
// second gives thirty samples of a 30 s stage, each seeing every thread,
// where a dump is cheap (2-3 ms with 20 threads on a 2-vCPU Xeon).
// DefaultBudget bounds what the dumps take: after one that took c, the
// next waits at least c ÷ the budget. Unbounded at once a second, a JVM
// on one busy CPU lost 7.7 % of its throughput with 200 virtual threads
// (48 ms a dump) and 20 % with 200 platform threads (436 ms a dump). The
// cost is measured and reported with every run.
const (
	DefaultPeriod = time.Second
	DefaultBudget = 0.02
)

// Option returns the JVM option that loads the sampler from the jar
// copied into ContainerDir, writing to Path every period at most, within
// budget (a share of one CPU).
func Option(period time.Duration, budget float64) string {
	return fmt.Sprintf("-javaagent:%s/%s=file=%s,period=%d,budget=%g", ContainerDir, JarName, Path, period.Milliseconds(), budget)
}

// Jar returns the sampler's jar, built by j's javac the first time and
// kept in the user's cache (or a private temporary directory, which done
// removes).
func Jar(ctx context.Context, j jdk.JDK) (string, func(), error) {
	classes, done, err := program.Compile(ctx, j)
	if err != nil {
		return "", nil, err
	}
	jar := filepath.Join(classes, JarName)
	if _, err := os.Stat(jar); err == nil {
		return jar, done, nil
	}
	if err := writeJar(classes, jar); err != nil {
		done()
		return "", nil, fmt.Errorf("thread sampler: %w", err)
	}
	return jar, done, nil
}

// writeJar packs the classes of dir into an agent jar at jar: written
// beside it, then renamed, so that no one reads half a jar.
func writeJar(dir, jar string) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	manifest := "Manifest-Version: 1.0\r\nPremain-Class: " + samplerClass + "\r\nAgent-Class: " + samplerClass + "\r\n\r\n"
	if err := addFile(zw, "META-INF/MANIFEST.MF", []byte(manifest)); err != nil {
		return err
	}
	classes, err := filepath.Glob(filepath.Join(dir, "*.class"))
	if err != nil || len(classes) == 0 {
		return fmt.Errorf("no compiled class in %s", dir)
	}
	for _, c := range classes {
		data, err := os.ReadFile(c)
		if err != nil {
			return err
		}
		if err := addFile(zw, filepath.Base(c), data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	tmp := jar + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, jar)
}

// addFile adds one file to a jar.
func addFile(zw *zip.Writer, name string, data []byte) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Unix(0, 0)})
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// frame splits "a.B.m:12" into class, method and line.
func frame(text string) (class, method string, line int) {
	if i := strings.LastIndexByte(text, ':'); i > 0 {
		if n, err := strconv.Atoi(text[i+1:]); err == nil {
			text, line = text[:i], n
		}
	}
	if i := strings.LastIndexByte(text, '.'); i > 0 {
		return text[:i], text[i+1:], line
	}
	return "", text, line
}
