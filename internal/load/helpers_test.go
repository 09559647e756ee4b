package load_test

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }
