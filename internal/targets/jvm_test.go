package targets_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

func TestJVMFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		java bench.JavaOptions
		want string
	}{
		{"Defaults", bench.JavaOptions{},
			"-XX:MaxRAMPercentage=50 -XX:NativeMemoryTracking=summary --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError"},
		{"HeapFraction", bench.JavaOptions{HeapPercent: 37.5},
			"-XX:MaxRAMPercentage=37.5 -XX:NativeMemoryTracking=summary --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError"},
		{"GCAndParallelism", bench.JavaOptions{HeapPercent: 75, GC: "zgc", VirtualParallelism: 2},
			"-XX:MaxRAMPercentage=75 -XX:NativeMemoryTracking=summary --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError -XX:+UseZGC -Djdk.virtualThreadScheduler.parallelism=2"},
		{"GCSpelledAsHotSpot", bench.JavaOptions{GC: "G1GC"},
			"-XX:MaxRAMPercentage=50 -XX:NativeMemoryTracking=summary --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError -XX:+UseG1GC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags, err := targets.JVMFlags(tc.java)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(flags, " "); got != tc.want {
				t.Fatalf("JVMFlags = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

func TestJVMFlagsErrInvalid(t *testing.T) {
	for _, tc := range []struct {
		java  bench.JavaOptions
		field string
	}{
		{bench.JavaOptions{GC: "cms"}, "java.gc"},
		{bench.JavaOptions{HeapPercent: 120}, "java.heapPercent"},
		{bench.JavaOptions{VirtualParallelism: -1}, "java.virtualParallelism"},
	} {
		_, err := targets.JVMFlags(tc.java)
		if got, want := bench.ErrorCode(err), bench.EINVALID; got != want {
			t.Errorf("%+v: code = %q, want %q (err %v)", tc.java, got, want, err)
		} else if !strings.HasPrefix(err.Error(), tc.field+":") {
			t.Errorf("%+v: error %q does not name field %s", tc.java, err, tc.field)
		}
	}
}

// The two Java targets must run with identical settings but for the thread
// model, or the comparison would measure something else.
func TestContainerEnvJavaTargetsDifferOnlyInThreadModel(t *testing.T) {
	opts := targets.StartOptions{Java: bench.JavaOptions{TomcatMaxThreads: 400, HeapPercent: 60, GC: "Parallel", VirtualParallelism: 1}}
	platform, err := targets.ContainerEnv(bench.TargetJavaPlatform, 9001, opts)
	if err != nil {
		t.Fatal(err)
	}
	virtual, err := targets.ContainerEnv(bench.TargetJavaVirtual, 9001, opts)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]string{
		"THREAD_MODEL": {"platform", "virtual"},
		"TARGET_NAME":  {"java-platform", "java-virtual"},
	} {
		if platform[key] != want[0] || virtual[key] != want[1] {
			t.Errorf("%s = %q / %q, want %q / %q", key, platform[key], virtual[key], want[0], want[1])
		}
		delete(platform, key)
		delete(virtual, key)
	}
	if !maps.Equal(platform, virtual) {
		t.Fatalf("environments differ beyond the thread model:\nplatform %v\nvirtual  %v", platform, virtual)
	}
	if got, want := platform["JDK_JAVA_OPTIONS"], "-XX:MaxRAMPercentage=60 -XX:NativeMemoryTracking=summary --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError -XX:+UseParallelGC -Djdk.virtualThreadScheduler.parallelism=1"; got != want {
		t.Errorf("JDK_JAVA_OPTIONS = %q, want %q", got, want)
	}
	if got, want := platform["TOMCAT_MAX_THREADS"], "400"; got != want {
		t.Errorf("TOMCAT_MAX_THREADS = %q, want %q", got, want)
	}
}

func TestContainerEnv(t *testing.T) {
	t.Run("Go", func(t *testing.T) {
		env, err := targets.ContainerEnv(bench.TargetGo, 8123, targets.StartOptions{Env: map[string]string{"GOGC": "200"}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"PORT": "8123", "BIND_ADDR": "127.0.0.1", "TARGET_NAME": "go", "GOGC": "200"}
		if !maps.Equal(env, want) {
			t.Fatalf("env = %v, want %v", env, want)
		}
	})
	t.Run("ExtraEnvOverrides", func(t *testing.T) {
		env, err := targets.ContainerEnv(bench.TargetJavaPlatform, 8123, targets.StartOptions{Env: map[string]string{"PORT": "1"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := env["PORT"], "1"; got != want {
			t.Fatalf("PORT = %q, want %q", got, want)
		}
		if got, want := env["TOMCAT_MAX_THREADS"], "200"; got != want {
			t.Fatalf("default TOMCAT_MAX_THREADS = %q, want %q", got, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := targets.ContainerEnv("nope", 1, targets.StartOptions{})
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q", got, want)
		}
	})
}
