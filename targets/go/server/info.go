package server

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	runtimemetrics "runtime/metrics"
	"strconv"
	"strings"
)

// ThreadModel is what runs the Go target's handlers, as /info reports it.
const ThreadModel = "goroutines"

// Where the container's memory limit is, relative to the file system root:
// cgroup v2 first, then v1.
const (
	cgroupV2MemoryMax   = "sys/fs/cgroup/memory.max"
	cgroupV1MemoryLimit = "sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// cpuInfo lists the host's processors: a container sees its host's.
const cpuInfo = "proc/cpuinfo"

// noV1Limit is where cgroup v1 values stop being limits: an unlimited v1
// group reads a page-rounded 2^63-1, which no container gets.
const noV1Limit = 1 << 62

// info is the body of GET /info: what the target is and the runtime
// settings in effect when asked.
type info struct {
	Target              string            `json:"target"`
	ThreadModel         string            `json:"threadModel"`
	Runtime             string            `json:"runtime"`
	RuntimeVersion      string            `json:"runtimeVersion"`
	Framework           string            `json:"framework"`
	AvailableProcessors int               `json:"availableProcessors"`
	MemoryLimitBytes    int64             `json:"memoryLimitBytes"`
	CPUModel            string            `json:"cpuModel"`
	Knobs               map[string]string `json:"knobs"`
}

// Framework is what serves the endpoints: the standard library's server,
// no framework (GET /info's framework).
const Framework = "net/http (the standard library)"

// newInfo reads the runtime's settings now rather than once at start: Go
// 1.25+ updates GOMAXPROCS by itself when the container's CPU limit
// changes, and GOGC and GOMEMLIMIT can be changed from inside the process.
// root is the file system the cgroup files are read from; db is nil
// without a database.
func newInfo(target string, root fs.FS, workers int, db *database) info {
	procs := runtime.GOMAXPROCS(0)
	in := info{
		Target:              target,
		ThreadModel:         ThreadModel,
		Runtime:             runtime.Version(),
		RuntimeVersion:      strings.TrimPrefix(runtime.Version(), "go"),
		Framework:           Framework,
		AvailableProcessors: procs,
		MemoryLimitBytes:    memoryLimit(root),
		CPUModel:            cpuModel(root),
		Knobs: map[string]string{
			"GOMAXPROCS": strconv.Itoa(procs),
			// A negative limit only reads it; math.MaxInt64 means none.
			"GOMEMLIMIT": strconv.FormatInt(debug.SetMemoryLimit(-1), 10),
			"GOGC":       gogc(),
			"WORKERS":    strconv.Itoa(workers), // 0: unbounded
		},
	}
	if db != nil {
		in.Knobs["dbKind"] = db.kind
		in.Knobs["dbPool"] = strconv.Itoa(db.pool)
	}
	return in
}

// gogc returns the GC percent in effect, "off" when the collector is
// off. runtime/metrics reads it without debug.SetGCPercent's side effect.
func gogc() string {
	sample := []runtimemetrics.Sample{{Name: "/gc/gogc:percent"}}
	runtimemetrics.Read(sample)
	if sample[0].Value.Kind() != runtimemetrics.KindUint64 {
		return "unknown"
	}
	percent := sample[0].Value.Uint64()
	if percent > math.MaxInt32 { // -1, off, reads as a huge unsigned number
		return "off"
	}
	return strconv.FormatUint(percent, 10)
}

// memoryLimit returns the memory limit of the cgroup the process is in, as
// it sees it through root, or 0 when there is none. It only reads files:
// the target runs in a FROM-scratch image.
func memoryLimit(root fs.FS) int64 {
	if b, err := fs.ReadFile(root, cgroupV2MemoryMax); err == nil {
		return parseLimit(b, math.MaxInt64) // "max" fails to parse: no limit
	}
	if b, err := fs.ReadFile(root, cgroupV1MemoryLimit); err == nil {
		return parseLimit(b, noV1Limit)
	}
	return 0
}

// cpuModel returns the host's CPU model, the first "model name" of
// /proc/cpuinfo as seen through root, or "" where it has none (arm64 says
// nothing of the kind): the orchestrator records it for a remote host,
// whose Docker engine does not say.
func cpuModel(root fs.FS) string {
	b, err := fs.ReadFile(root, cpuInfo)
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// parseLimit parses a cgroup memory limit, returning 0 for anything that
// is not a number below none.
func parseLimit(b []byte, none int64) int64 {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n <= 0 || n >= none {
		return 0
	}
	return n
}

// serveInfo answers GET /info.
func (h *handler) serveInfo(w http.ResponseWriter, _ *http.Request) int {
	body, err := json.Marshal(newInfo(h.target, h.root, cap(h.workers), h.database))
	if err != nil {
		return writeError(w, http.StatusInternalServerError, "encode /info: "+err.Error())
	}
	writeJSON(w, http.StatusOK, body)
	return http.StatusOK
}
