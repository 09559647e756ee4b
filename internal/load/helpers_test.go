package load_test

import (
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

// slowTests: the tests of seconds whose verdicts rest on sleeps, schedules
// and counts at low rates (tens to 2,000 requests a second, a few per cent
// of a CPU) call t.Parallel, so that they overlap: one after another they
// took 53 of the package's 73 s, asleep. Those that load a CPU
// (TestDropsAndGeneratorBound, TestStarvedGeneratorIsLateByItself at GOMAXPROCS 1)
// do not, nor one that needs an in-process server's timers on time
// (TestNoRequestOnAConnectionTheTargetClosed): go test runs the parallel
// tests after every other has ended.
