// Command enginebench drives threadbench's own load engine (internal/load)
// at a target already running, in the closed model, and prints what it
// measured as one JSON line: the engine alone, without the orchestrator
// that starts a target of its own for every run. scripts/bench.sh uses it
// to set the engine beside wrk on the same target container, so that the
// ratio is the engines' and not two containers' (a one-CPU target's rate
// differs from one container to the next by more than the engines do).
//
//	go run ./scripts/enginebench -url http://127.0.0.1:18099/api/light -clients 64 -duration 10s
//
// Its warm-up is the orchestrator's as bench.sh runs it: an open one at
// -warmup-rate for -warmup, sent by the same attack.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime/pprof"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
)

type result struct {
	Throughput float64 `json:"throughput"` // successful responses per second in the stage
	P50        float64 `json:"p50"`        // ms
	P99        float64 `json:"p99"`        // ms
	Errors     int64   `json:"errors"`
	CPUShare   float64 `json:"cpuShare"` // the engine's CPU over the stage, of its CPUs
	Flags      string  `json:"flags"`
}

func main() {
	target := flag.String("url", "", "the request to send, e.g. http://127.0.0.1:18099/api/light")
	clients := flag.Int("clients", 64, "closed-model clients")
	duration := flag.Duration("duration", 10*time.Second, "the measured stage")
	warmup := flag.Duration("warmup", 3*time.Second, "an open warm-up before it (0: none)")
	warmupRate := flag.Float64("warmup-rate", 500, "the warm-up's rate, req/s")
	cpuProfile := flag.String("cpuprofile", "", "write the engine's CPU profile over the whole attack to this file (go tool pprof reads it)")
	flag.Parse()
	stop := func() {}
	if *cpuProfile != "" {
		var err error
		if stop, err = profileCPU(*cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "enginebench:", err)
			os.Exit(2)
		}
	}
	err := run(*target, *clients, *duration, *warmup, *warmupRate)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(2)
	}
}

// profileCPU starts a CPU profile into path and returns what ends it.
func profileCPU(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func run(target string, clients int, duration, warmup time.Duration, warmupRate float64) error {
	u, err := url.Parse(target)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return fmt.Errorf("-url %q: want an absolute http URL", target)
	case clients < 1:
		return fmt.Errorf("-clients %d: want 1 or more", clients)
	case duration <= 0:
		return fmt.Errorf("-duration %s: want more than 0", duration)
	case warmup < 0 || (warmup > 0 && warmupRate <= 0):
		return fmt.Errorf("-warmup %s at -warmup-rate %g: want a warm-up of 0, or one with a rate above 0", warmup, warmupRate)
	}
	plan := bench.Plan{
		Workload: bench.Workload{Requests: []bench.Request{{URI: u.RequestURI(), Weight: 1}}},
		Profile: bench.Profile{Name: "enginebench", Model: bench.ModelClosed,
			Stages: []bench.Stage{{Name: fmt.Sprintf("c%d", clients), Duration: bench.Duration(duration), Concurrency: clients}}},
		Warmup: bench.Warmup{Disabled: warmup == 0, Duration: bench.Duration(warmup), Rate: warmupRate},
	}
	res, err := load.NewEngine().Run(context.Background(), u.Scheme+"://"+u.Host, plan, bench.Observer{})
	if err != nil {
		return err
	}
	if len(res.Stages) == 0 {
		return fmt.Errorf("the attack measured no stage")
	}
	st := res.Stages[len(res.Stages)-1]
	out := result{Throughput: st.Stats.Throughput, P50: st.Stats.Latency.P50, P99: st.Stats.Latency.P99,
		Errors: st.Stats.Requests - st.Stats.Successes}
	if st.Generator != nil {
		out.CPUShare = st.Generator.CPUShare
	}
	for _, f := range st.Flags {
		out.Flags += f.Kind + ": " + f.Reason + "; "
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
