package bench_test

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

func hold(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate} }

func ramp(s, rate float64) bench.Stage { return bench.Stage{Duration: sec(s), Rate: rate, Ramp: true} }
