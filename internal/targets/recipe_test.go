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

// The two Java targets must run with identical settings but for the thread
// model, or the comparison would measure something else.
func TestContainerEnvJavaTargetsDifferOnlyInThreadModel(t *testing.T) {
	opts := targets.StartOptions{Java: bench.JavaOptions{TomcatMaxThreads: 400, HeapPercent: 60, GC: "Parallel", VirtualParallelism: 1}}
	platform := containerEnv(t, bench.TargetJavaPlatform, 9001, opts)
	virtual := containerEnv(t, bench.TargetJavaVirtual, 9001, opts)
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

// containerEnv is the environment a target of the default catalog starts with.
func containerEnv(t *testing.T, target string, port int, opts targets.StartOptions) map[string]string {
	t.Helper()
	entry, err := targets.DefaultCatalog().Lookup(target)
	if err != nil {
		t.Fatal(err)
	}
	env, _, err := targets.ContainerEnv(entry, target, port, opts)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestContainerEnv(t *testing.T) {
	t.Run("Go", func(t *testing.T) {
		env := containerEnv(t, bench.TargetGo, 8123, targets.StartOptions{Env: map[string]string{"GOGC": "200"}})
		want := map[string]string{"PORT": "8123", "BIND_ADDR": "127.0.0.1", "TARGET_NAME": "go", "GOGC": "200"}
		if !maps.Equal(env, want) {
			t.Fatalf("env = %v, want %v", env, want)
		}
	})
	t.Run("GoMemoryLimitLikeTheJVMHeap", func(t *testing.T) {
		// 50% of 1 GiB, the share the JVM's heap gets by default.
		env := containerEnv(t, bench.TargetGo, 8123, targets.StartOptions{Limits: bench.Limits{CPUs: 1, MemoryMiB: 1024}})
		if got, want := env["GOMEMLIMIT"], "536870912"; got != want {
			t.Fatalf("GOMEMLIMIT = %q, want %q", got, want)
		}
		env = containerEnv(t, bench.TargetGo, 8123, targets.StartOptions{Limits: bench.Limits{MemoryMiB: 1000}, Java: bench.JavaOptions{HeapPercent: 75}})
		if got, want := env["GOMEMLIMIT"], "786432000"; got != want {
			t.Fatalf("GOMEMLIMIT at 75%% of 1000 MiB = %q, want %q", got, want)
		}
	})
	t.Run("ExtraEnvOverrides", func(t *testing.T) {
		env := containerEnv(t, bench.TargetJavaPlatform, 8123, targets.StartOptions{Env: map[string]string{"PORT": "1"}})
		if got, want := env["PORT"], "1"; got != want {
			t.Fatalf("PORT = %q, want %q", got, want)
		}
		if got, want := env["TOMCAT_MAX_THREADS"], "200"; got != want {
			t.Fatalf("default TOMCAT_MAX_THREADS = %q, want %q", got, want)
		}
	})
	t.Run("MetricsPort", func(t *testing.T) {
		// Java serves its metrics on a port of its own; Go has none to set.
		for target, want := range map[string]string{bench.TargetJavaPlatform: "8124", bench.TargetJavaVirtual: "8124", bench.TargetGo: ""} {
			if got := containerEnv(t, target, 8123, targets.StartOptions{MetricsPort: 8124})["METRICS_PORT"]; got != want {
				t.Errorf("%s: METRICS_PORT = %q, want %q", target, got, want)
			}
		}
	})
	t.Run("VariantInTargetName", func(t *testing.T) {
		env := containerEnv(t, bench.TargetJavaVirtual+"@25", 8123, targets.StartOptions{})
		if got, want := env["TARGET_NAME"], "java-virtual@25"; got != want {
			t.Fatalf("TARGET_NAME = %q, want %q", got, want)
		}
	})
}

// A Java target records the thread model its recipe's variable told it,
// which reports read a pool size by (javaThreadModel).
func TestJavaThreadModelSetting(t *testing.T) {
	for target, want := range map[string]string{bench.TargetJavaPlatform: bench.ThreadModelPlatform, bench.TargetJavaVirtual: bench.ThreadModelVirtual} {
		entry, err := targets.DefaultCatalog().Lookup(target)
		if err != nil {
			t.Fatal(err)
		}
		_, settings, err := targets.ContainerEnv(entry, target, 8123, targets.StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := settings["javaThreadModel"]; got != want {
			t.Errorf("%s: javaThreadModel = %q, want %q", target, got, want)
		}
	}
}
