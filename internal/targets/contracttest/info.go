package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The knobs /info must report, by runtime: the settings that change what a
// benchmark measures. Knob values are strings.
var (
	goKnobs   = []string{"GOMAXPROCS", "GOMEMLIMIT", "GOGC"}
	javaKnobs = []string{"tomcatMaxThreads", "virtualParallelism", "gc", "maxHeapBytes"}
	// reactiveKnobs: no Tomcat pool and no virtual threads serve its requests.
	reactiveKnobs = []string{"eventLoopThreads", "boundedElasticThreads", "gc", "maxHeapBytes"}
)

// infoResponse is the contract's GET /info. Pointers tell absent fields
// from zero ones.
type infoResponse struct {
	Target              *string            `json:"target"`
	ThreadModel         *string            `json:"threadModel"`
	Runtime             *string            `json:"runtime"`
	RuntimeVersion      *string            `json:"runtimeVersion"`
	Framework           *string            `json:"framework"`
	AvailableProcessors *int               `json:"availableProcessors"`
	MemoryLimitBytes    *int64             `json:"memoryLimitBytes"`
	CPUModel            *string            `json:"cpuModel"`
	Knobs               *map[string]string `json:"knobs"`
}

// threadModel is the thread model the target should report: the one it
// declares.
func (c *checker) threadModel() string { return c.opts.ThreadModel }

// knobs are the knob names the target should report.
func (c *checker) knobs() []string { return c.expect().knobs }

// info checks GET /info.
func (c *checker) info(ctx context.Context) error {
	resp, err := c.getJSON(ctx, "/info", http.StatusOK)
	if err != nil {
		return err
	}
	var info infoResponse
	if err := json.Unmarshal(resp.body, &info); err != nil {
		return fmt.Errorf("GET /info: %w; body %s", err, snippet(resp.body))
	}
	if err := c.checkInfo(&info); err != nil {
		return fmt.Errorf("GET /info: %w; body %s", err, snippet(resp.body))
	}
	return nil
}

// checkInfo checks the fields of /info: present, and sensible.
func (c *checker) checkInfo(info *infoResponse) error {
	switch {
	case info.Target == nil || *info.Target != c.opts.Target:
		return fmt.Errorf("target %s, want %q", show(info.Target), c.opts.Target)
	case info.ThreadModel == nil || *info.ThreadModel != c.threadModel():
		return fmt.Errorf("threadModel %s, want %q", show(info.ThreadModel), c.threadModel())
	case info.RuntimeVersion == nil || *info.RuntimeVersion == "":
		return fmt.Errorf("runtimeVersion %s, want the runtime's version", show(info.RuntimeVersion))
	case info.Runtime == nil || !strings.Contains(*info.Runtime, *info.RuntimeVersion):
		return fmt.Errorf("runtime %s, want a name with the version %q", show(info.Runtime), *info.RuntimeVersion)
	case info.Framework == nil || *info.Framework == "":
		return fmt.Errorf("framework %s, want what serves the endpoints", show(info.Framework))
	case info.AvailableProcessors == nil || *info.AvailableProcessors < 1:
		return fmt.Errorf("availableProcessors %s, want at least 1", show(info.AvailableProcessors))
	case info.MemoryLimitBytes == nil || *info.MemoryLimitBytes < 0:
		return fmt.Errorf("memoryLimitBytes %s, want the limit in bytes or 0 for none", show(info.MemoryLimitBytes))
	case info.CPUModel == nil:
		return fmt.Errorf("cpuModel absent, want the host's CPU model (\"\" where /proc/cpuinfo names none)")
	case info.Knobs == nil:
		return fmt.Errorf("knobs absent, want an object of strings")
	}
	for _, knob := range c.knobs() {
		if (*info.Knobs)[knob] == "" {
			return fmt.Errorf("knobs lacks %q (want %s)", knob, strings.Join(c.knobs(), ", "))
		}
	}
	return nil
}
