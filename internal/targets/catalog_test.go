package targets_test

import (
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

func TestLookup(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, tc := range []struct {
			name, kind, threadModel, metricsPath string
		}{
			{bench.TargetGo, targets.KindGo, targets.ThreadModelGoroutines, "/metrics"},
			{bench.TargetJavaPlatform, targets.KindJava, targets.ThreadModelPlatform, "/actuator/prometheus"},
			{bench.TargetJavaVirtual, targets.KindJava, targets.ThreadModelVirtual, "/actuator/prometheus"},
		} {
			e, err := targets.Lookup(tc.name)
			if err != nil {
				t.Fatalf("Lookup(%q): %v", tc.name, err)
			}
			if got, want := e.Kind, tc.kind; got != want {
				t.Errorf("%s: Kind = %q, want %q", tc.name, got, want)
			}
			if got, want := e.ThreadModel, tc.threadModel; got != want {
				t.Errorf("%s: ThreadModel = %q, want %q", tc.name, got, want)
			}
			if got, want := e.MetricsPath, tc.metricsPath; got != want {
				t.Errorf("%s: MetricsPath = %q, want %q", tc.name, got, want)
			}
			if got, want := e.HealthPath, "/health"; got != want {
				t.Errorf("%s: HealthPath = %q, want %q", tc.name, got, want)
			}
			if e.Description == "" {
				t.Errorf("%s: no description", tc.name)
			}
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := targets.Lookup("rust")
		if got, want := bench.ErrorCode(err), bench.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q (err %v)", got, want, err)
		}
		for _, name := range targets.Names() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not list valid name %q", err, name)
			}
		}
	})
}

func TestNames(t *testing.T) {
	if got, want := strings.Join(targets.Names(), ","), "go,java-platform,java-virtual"; got != want {
		t.Fatalf("Names() = %s, want %s", got, want)
	}
}

func TestEntryInfo(t *testing.T) {
	e, _ := targets.Lookup(bench.TargetJavaVirtual)
	info := e.Info()
	if got, want := info, (bench.TargetInfo{Name: e.Name, Kind: e.Kind, ThreadModel: e.ThreadModel, MetricsPath: e.MetricsPath, Description: e.Description}); got != want {
		t.Fatalf("Info() = %+v, want %+v", got, want)
	}
}
