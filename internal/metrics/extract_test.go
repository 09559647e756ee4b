package metrics_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestExtract_Golden checks the curated extraction of real expositions of
// the three targets against the golden files.
func TestExtract_Golden(t *testing.T) {
	for _, name := range []string{"go", "java-platform", "java-virtual"} {
		t.Run(name, func(t *testing.T) {
			got := extractFile(t, filepath.Join("testdata", name+".prom"))
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("extraction of %s.prom differs from %s (run with -update to accept):\n%s", name, golden, got)
			}
		})
	}
}

// TestExtract_Targets checks what each target's exposition must yield for
// the resource summaries to have something to read.
func TestExtract_Targets(t *testing.T) {
	tests := []struct {
		file    string
		want    []string // sample lines' beginnings (names, labels, maybe values), as in the golden file
		notWant []string
	}{
		{"go", []string{"go_goroutines ", "go_threads ", "process_cpu_seconds_total ", "go_gc_duration_seconds_count ", "process_resident_memory_bytes ",
			`threadbench_inflight_requests{thread="goroutine"} 50` + "\n"},
			[]string{"jvm_"}},
		// Platform threads: Tomcat's pool is busy with the requests in flight.
		{"java-platform", []string{"jvm_threads_live_threads ", "tomcat_threads_busy_threads ", `jvm_memory_used_bytes{area="heap"} `,
			`jvm_memory_used_bytes{area="nonheap"} `, "jvm_gc_pause_seconds_count ", "process_cpu_time_ns_total ", "jvm_nmt_thread_committed_bytes ",
			`threadbench_inflight_requests{thread="platform"} 50` + "\n", `threadbench_inflight_requests{thread="virtual"} 0` + "\n"},
			[]string{"go_", `id="`}},
		// Virtual threads: Tomcat reports -1 busy threads, which is left
		// out; the 50 sleeping requests are parked, so Micrometer's live
		// virtual threads miss them and the in-flight gauge does not.
		{"java-virtual", []string{`jvm_threads_virtual_live_threads{scheduling_status="mounted"} `, "jvm_threads_virtual_pool_size_threads ",
			"jvm_threads_virtual_pinned_seconds_count ", "jvm_nmt_total_committed_bytes ",
			`threadbench_inflight_requests{thread="platform"} 0` + "\n", `threadbench_inflight_requests{thread="virtual"} 50` + "\n"},
			[]string{"tomcat_threads_busy_threads", "go_"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := extractFile(t, filepath.Join("testdata", tt.file+".prom"))
			for _, w := range tt.want {
				if !strings.Contains(got, "\n"+w) && !strings.HasPrefix(got, w) {
					t.Errorf("no %q in the extraction:\n%s", w, got)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(got, nw) {
					t.Errorf("%q in the extraction:\n%s", nw, got)
				}
			}
		})
	}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // sample lines
	}{
		{"sums over dropped labels",
			"# TYPE jvm_gc_pause_seconds summary\n" +
				`jvm_gc_pause_seconds_count{action="minor",gc="G1 Young"} 3` + "\n" +
				`jvm_gc_pause_seconds_sum{action="minor",gc="G1 Young"} 0.5` + "\n" +
				`jvm_gc_pause_seconds_count{action="major",gc="G1 Old"} 1` + "\n" +
				`jvm_gc_pause_seconds_sum{action="major",gc="G1 Old"} 0.25` + "\n",
			"jvm_gc_pause_seconds_count 4\njvm_gc_pause_seconds_sum 0.75\n"},
		{"keeps listed labels, sums the pools of an area",
			"# TYPE jvm_memory_used_bytes gauge\n" +
				`jvm_memory_used_bytes{area="heap",id="eden"} 10` + "\n" +
				`jvm_memory_used_bytes{area="heap",id="old"} 20` + "\n" +
				`jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 5` + "\n",
			"jvm_memory_used_bytes{area=\"heap\"} 30\njvm_memory_used_bytes{area=\"nonheap\"} 5\n"},
		{"drops -1 and NaN",
			"# TYPE tomcat_threads_busy_threads gauge\n" + `tomcat_threads_busy_threads{name="http"} -1.0` + "\n" +
				"# TYPE jvm_nmt_thread_committed_bytes gauge\njvm_nmt_thread_committed_bytes NaN\n" +
				"# TYPE go_threads gauge\ngo_threads 7\n",
			"go_threads 7\n"},
		{"ignores what is not curated",
			"# TYPE http_client_requests_seconds histogram\nhttp_client_requests_seconds_bucket{le=\"+Inf\"} 3\n" +
				"http_client_requests_seconds_count 3\nhttp_client_requests_seconds_sum 1\n",
			""},
		{"sums the handlers' time over their labels",
			"# TYPE http_server_requests_seconds histogram\n" +
				`http_server_requests_seconds_bucket{uri="/a",le="+Inf"} 3` + "\n" + `http_server_requests_seconds_count{uri="/a"} 3` + "\n" + `http_server_requests_seconds_sum{uri="/a"} 1` + "\n" +
				`http_server_requests_seconds_bucket{uri="/b",le="+Inf"} 2` + "\n" + `http_server_requests_seconds_count{uri="/b"} 2` + "\n" + `http_server_requests_seconds_sum{uri="/b"} 0.5` + "\n",
			"http_server_requests_seconds_count 5\nhttp_server_requests_seconds_sum 1.5\n"},
		{"untyped counts",
			"go_goroutines 12\n", "go_goroutines 12\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := metrics.Extract(strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(samples); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestExtract_Garbage(t *testing.T) {
	for _, text := range []string{"<html>not metrics</html>\n", "go_goroutines twelve\n", "# TYPE x counter\n# TYPE x gauge\n"} {
		if _, err := metrics.Extract(strings.NewReader(text)); err == nil {
			t.Errorf("Extract(%q): no error", text)
		}
	}
}

func extractFile(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	samples, err := metrics.Extract(f)
	if err != nil {
		t.Fatal(err)
	}
	return lines(samples)
}

func lines(samples []metrics.Sample) string {
	var b strings.Builder
	for _, s := range samples {
		b.WriteString(s.String() + "\n")
	}
	return b.String()
}
