package stats_test

import (
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/stats"
)

func TestTQuantile(t *testing.T) {
	tests := []struct {
		name  string
		p, df float64
		want  float64
	}{
		// Printed tables give 2.262, 4.303, 2.045, 1.962...; the digits
		// below are mpmath's, inverting its 30-digit incomplete beta.
		{"97.5% df 9, the 10-batch interval", 0.975, 9, 2.262157162798205},
		{"97.5% df 2", 0.975, 2, 4.302652729749462},
		{"97.5% df 29", 0.975, 29, 2.045229642132704},
		{"97.5% df 1000", 0.975, 1000, 1.962339080826408},
		{"97.5% df 4", 0.975, 4, 2.776445105197793},
		{"95% df 10", 0.95, 10, 1.812461122811676},
		{"99.5% df 5", 0.995, 5, 4.032142983555227},
		// Closed forms: df 1 is Cauchy, tan(π(p-½)); df 2 is
		// (2p-1)/√(2p(1-p)).
		{"df 1 at 97.5%", 0.975, 1, math.Tan(math.Pi * 0.475)},
		{"df 1 far tail", 0.9995, 1, math.Tan(math.Pi * 0.4995)},
		{"df 2 at 99%", 0.99, 2, 0.98 / math.Sqrt(2*0.99*0.01)},
		// A huge df is nearly the standard normal, z(0.975) = 1.959964.
		{"df 1e7 is nearly normal", 0.975, 1e7, 1.959964221767205},
		// Symmetry and the centre.
		{"lower tail is the mirror", 0.025, 9, -2.262157162798205},
		{"median is 0", 0.5, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stats.TQuantile(tt.p, tt.df); math.Abs(got-tt.want) > 1e-9*math.Max(1, math.Abs(tt.want)) {
				t.Errorf("TQuantile(%v, %v) = %.9f, want %.9f", tt.p, tt.df, got, tt.want)
			}
		})
	}
}

func TestTQuantileOutOfDomain(t *testing.T) {
	tests := []struct {
		name  string
		p, df float64
	}{
		{"p 0", 0, 5},
		{"p 1", 1, 5},
		{"p NaN", math.NaN(), 5},
		{"df 0", 0.975, 0},
		{"df negative", 0.975, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stats.TQuantile(tt.p, tt.df); !math.IsNaN(got) {
				t.Errorf("TQuantile(%v, %v) = %v, want NaN", tt.p, tt.df, got)
			}
		})
	}
}
