package load

import (
	"math"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// A window's generator figures count the seconds whose CPU share reached
// the bound beside its mean and peak: here three seconds at 95, 50 and 92
// % of one CPU, a mean of 79 % that alone would flag nothing.
func TestGeneratorCPUBoundSeconds(t *testing.T) {
	r := &recorder{cfg: recorderConfig{cpus: 1}}
	cpu := time.Duration(0)
	r.samples = []sample{{at: 0}, {at: 0}} // the attack's start and t0
	for i, share := range []float64{0.95, 0.50, 0.92} {
		cpu += time.Duration(share * float64(time.Second))
		r.samples = append(r.samples, sample{at: time.Duration(i+1) * time.Second, cpu: cpu})
	}
	g := r.generatorOver(&window{agg: NewAggregate(1, false)}, 0, 3)
	if g.CPUBoundSeconds != 2 || math.Abs(g.CPUSharePeak-0.95) > 1e-9 || math.Abs(g.CPUShare-0.79) > 1e-9 {
		t.Errorf("mean %.3f, peak %.3f, %d seconds at the bound; want 0.79, 0.95 and 2", g.CPUShare, g.CPUSharePeak, g.CPUBoundSeconds)
	}
	if flags := g.Flags(3); len(flags) != 1 || flags[0].Kind != bench.FlagGeneratorBound {
		t.Errorf("flags %+v, want generator-bound by its peak seconds", flags)
	}
	if second := r.generatorOver(&window{agg: NewAggregate(1, false)}, 1, 2); second.CPUBoundSeconds != 0 {
		t.Errorf("the 50 %% second counts %d seconds at the bound", second.CPUBoundSeconds)
	}
	if second := r.generatorOver(&window{agg: NewAggregate(1, false)}, 2, 3); second.CPUBoundSeconds != 1 {
		t.Errorf("the 92 %% second counts %d seconds at the bound, want 1", second.CPUBoundSeconds)
	}
}
