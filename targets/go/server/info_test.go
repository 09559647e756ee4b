package server_test

import (
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/targets/go/server"
)

// infoResponse is the body of GET /info.
type infoResponse struct {
	Target              string            `json:"target"`
	ThreadModel         string            `json:"threadModel"`
	Runtime             string            `json:"runtime"`
	RuntimeVersion      string            `json:"runtimeVersion"`
	Framework           string            `json:"framework"`
	AvailableProcessors int               `json:"availableProcessors"`
	MemoryLimitBytes    *int64            `json:"memoryLimitBytes"`
	Knobs               map[string]string `json:"knobs"`
}

func getInfo(t *testing.T, h http.Handler) infoResponse {
	t.Helper()
	status, body := get(t, h, "/info")
	if status != http.StatusOK {
		t.Fatalf("GET /info: status %d; body %s", status, body)
	}
	var info infoResponse
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatalf("GET /info: %v; body %s", err, body)
	}
	return info
}

func TestInfo(t *testing.T) {
	info := getInfo(t, server.NewHandler("go-info"))
	for _, tt := range []struct{ field, got, want string }{
		{"target", info.Target, "go-info"},
		{"threadModel", info.ThreadModel, "goroutines"},
		{"runtime", info.Runtime, runtime.Version()},
		{"runtimeVersion", "go" + info.RuntimeVersion, runtime.Version()},
		{"framework", info.Framework, server.Framework},
		{"availableProcessors", strconv.Itoa(info.AvailableProcessors), strconv.Itoa(runtime.GOMAXPROCS(0))},
		{"knobs.GOMAXPROCS", info.Knobs["GOMAXPROCS"], strconv.Itoa(runtime.GOMAXPROCS(0))},
		{"knobs.GOMEMLIMIT", info.Knobs["GOMEMLIMIT"], strconv.FormatInt(debug.SetMemoryLimit(-1), 10)},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
	if strings.HasPrefix(info.RuntimeVersion, "go") || info.RuntimeVersion == "" {
		t.Errorf("runtimeVersion = %q, want the bare version", info.RuntimeVersion)
	}
	if info.MemoryLimitBytes == nil || *info.MemoryLimitBytes < 0 {
		t.Errorf("memoryLimitBytes = %v, want present and not negative", info.MemoryLimitBytes)
	}
	if _, err := strconv.Atoi(info.Knobs["GOGC"]); err != nil && info.Knobs["GOGC"] != "off" {
		t.Errorf("knobs.GOGC = %q, want a percent or off", info.Knobs["GOGC"])
	}
}

// TestInfoDatabaseKnobs checks that /info's knobs say the database's kind
// and pool when one is configured, and nothing of it otherwise.
func TestInfoDatabaseKnobs(t *testing.T) {
	for _, tt := range []struct {
		name string
		db   server.DBConfig
		kind string // "": absent
		pool string
	}{
		{"postgres", server.DBConfig{Kind: "postgres", Host: "127.0.0.1", Port: 5432, Pool: 7}, "postgres", "7"},
		{"mysql", server.DBConfig{Kind: "mysql", Host: "127.0.0.1", Port: 3306, Pool: 10}, "mysql", "10"},
		{"none", server.DBConfig{}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := server.NewHandler("go", server.WithDatabase(tt.db))
			defer h.Close()
			knobs := getInfo(t, h).Knobs
			kind, hasKind := knobs["dbKind"]
			pool, hasPool := knobs["dbPool"]
			if kind != tt.kind || pool != tt.pool || hasKind != (tt.kind != "") || hasPool != (tt.pool != "") {
				t.Errorf("knobs dbKind %q (%v), dbPool %q (%v); want %q and %q", kind, hasKind, pool, hasPool, tt.kind, tt.pool)
			}
		})
	}
}

// TestInfoKnobsAreLive checks that /info reports GOGC and GOMEMLIMIT as
// they are when asked, not as they were at start.
func TestInfoKnobsAreLive(t *testing.T) {
	h := server.NewHandler("go")
	for _, tt := range []struct {
		name string
		set  func() (restore func())
		knob string
		want string
	}{
		{"GOGC", func() func() {
			old := debug.SetGCPercent(37)
			return func() { debug.SetGCPercent(old) }
		}, "GOGC", "37"},
		{"GOGC off", func() func() {
			old := debug.SetGCPercent(-1)
			return func() { debug.SetGCPercent(old) }
		}, "GOGC", "off"},
		{"GOMEMLIMIT", func() func() {
			old := debug.SetMemoryLimit(3 << 30)
			return func() { debug.SetMemoryLimit(old) }
		}, "GOMEMLIMIT", strconv.Itoa(3 << 30)},
		{"GOMAXPROCS", func() func() {
			old := runtime.GOMAXPROCS(1)
			return func() { runtime.GOMAXPROCS(old) }
		}, "GOMAXPROCS", "1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			restore := tt.set()
			got := getInfo(t, h).Knobs[tt.knob]
			restore()
			if got != tt.want {
				t.Errorf("knobs.%s = %q, want %q", tt.knob, got, tt.want)
			}
		})
	}
}
