//go:build integration

package jrebase_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// TestEnsure_Engine assembles the base image from the host JDK in the real
// engine, runs java in it, and checks that a second Ensure finds it.
// Run with TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1.
func TestEnsure_Engine(t *testing.T) {
	ctx := context.Background()
	j, err := jdk.Find()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	start := time.Now()
	ref, err := jrebase.Ensure(ctx, cli, j, testLog{t, start})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first Ensure: %s in %s", ref, time.Since(start).Round(time.Millisecond))
	img, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image %s: %.1f MB", ref, float64(img.Size)/1e6)
	if got := img.Config.Labels[jrebase.LabelJDKVersion]; got != j.Version {
		t.Errorf("label %s = %q, want %q", jrebase.LabelJDKVersion, got, j.Version)
	}

	t.Run("java -version", func(t *testing.T) {
		out := runJava(t, ref, "", "-version")
		if !strings.Contains(out, `version "`+j.Version+`"`) {
			t.Errorf("java -version says:\n%s\nwant version %q", out, j.Version)
		}
	})
	t.Run("modules", func(t *testing.T) {
		out := runJava(t, ref, "", "--list-modules")
		for _, m := range []string{"java.security.jgss", "java.management", "jdk.management", "jdk.unsupported"} {
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

	t.Run("java -jar", func(t *testing.T) {
		checkJar(t, ref, j.Version)
	})

	t.Run("cached", func(t *testing.T) {
		var log bytes.Buffer
		start := time.Now()
		again, err := jrebase.Ensure(ctx, cli, j, &log)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if again != ref {
			t.Errorf("second Ensure = %q, want %q", again, ref)
		}
		if strings.Contains(log.String(), "assembling") {
			t.Errorf("second Ensure took %s and logged:\n%s\nwant a cache hit", took, log.String())
		}
		t.Logf("second Ensure: %s", took.Round(time.Millisecond))
	})
}

// runJava runs java with args in a container of image as user ("" for the
// image's default) and returns its output, failing unless it exits 0.
func runJava(t *testing.T, image, user string, args ...string) string {
	t.Helper()
	return runJavaWith(t, image,
		[]testcontainers.ContainerCustomizer{testcontainers.WithConfigModifier(func(c *container.Config) { c.User = user })},
		args...)
}

// runJavaWith runs java with args in a container of image set up by opts
// and returns its output, failing unless it exits 0.
func runJavaWith(t *testing.T, image string, opts []testcontainers.ContainerCustomizer, args ...string) string {
	t.Helper()
	ctx := context.Background()
	opts = append([]testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(append([]string{"java"}, args...)...),
		testcontainers.WithLabels(map[string]string{"io.threadbench.managed": "true"}),
		testcontainers.WithWaitStrategy(wait.ForExit().WithExitTimeout(time.Minute)),
	}, opts...)
	ctr, err := testcontainers.Run(ctx, image, opts...)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	state, err := ctr.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := ctr.Logs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	out, err := io.ReadAll(logs)
	if err != nil {
		t.Fatal(err)
	}
	if state.ExitCode != 0 {
		t.Fatalf("java %s exited %d:\n%s", strings.Join(args, " "), state.ExitCode, out)
	}
	return string(out)
}

// probeSource is a Java 21 program that uses what the Spring Boot target
// relies on: a virtual thread, and the DiagnosticCommand MBean (jdk.management)
// that serves Native Memory Tracking.
const probeSource = `import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

public class Probe {
    public static void main(String[] args) throws Exception {
        Thread t = Thread.ofVirtual().start(() -> {});
        t.join();
        Object nmt = ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        boolean tracked = nmt instanceof String s && s.contains("Total: reserved");
        System.out.println("probe java=" + Runtime.version() + " virtual=" + t.isVirtual() + " nmt=" + tracked);
    }
}
`

// probeJar compiles probeSource for Java 21 with the host's JDK and returns
// the jar's path, skipping the test without a JDK.
func probeJar(t *testing.T) string {
	t.Helper()
	j, err := jdk.Find()
	if err != nil {
		t.Skipf("no JDK to compile the probe jar: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Probe.java")
	if err := os.WriteFile(src, []byte(probeSource), 0o644); err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(dir, "probe.jar")
	for _, cmd := range [][]string{
		{j.Tool("javac"), "--release", "21", "-d", filepath.Join(dir, "classes"), src},
		{j.Tool("jar"), "--create", "--file", jar, "--main-class", "Probe", "-C", filepath.Join(dir, "classes"), "."},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
	}
	return jar
}

// checkJar runs the probe jar in image the way the orchestrator runs the
// Spring Boot jar (its JVM flags in JDK_JAVA_OPTIONS, java -jar in exec
// form), plus a diagnostic flag, and checks what it reports.
func checkJar(t *testing.T, image, version string) {
	jar := probeJar(t)
	out := runJavaWith(t, image, []testcontainers.ContainerCustomizer{
		testcontainers.WithFiles(testcontainers.ContainerFile{HostFilePath: jar, ContainerFilePath: "/tmp/probe.jar", FileMode: 0o644}),
		testcontainers.WithEnv(map[string]string{"JDK_JAVA_OPTIONS": "-XX:MaxRAMPercentage=50 -XX:NativeMemoryTracking=summary " +
			"--enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError"}),
	}, "-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintNMTStatistics", "-jar", "/tmp/probe.jar")
	for _, want := range []string{"Picked up JDK_JAVA_OPTIONS", "probe java=" + version, "virtual=true nmt=true", "Native Memory Tracking"} {
		if !strings.Contains(out, want) {
			t.Errorf("java -jar probe.jar printed:\n%s\nwant %q", out, want)
		}
	}
}

// testLog writes Ensure's progress to the test log, with the time since start.
type testLog struct {
	t     *testing.T
	start time.Time
}

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("%6.1fs %s", time.Since(l.start).Seconds(), strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
