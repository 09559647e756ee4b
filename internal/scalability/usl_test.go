package scalability_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/scalability"
)

func uslAt(sigma, kappa, lambda, n float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// sweep measures a USL system at 1, 2, 4 … clients, each throughput
// multiplied by a noise factor.
func sweep(sigma, kappa, lambda float64, clients []float64, noise func() float64) []scalability.Point {
	pts := make([]scalability.Point, len(clients))
	for i, n := range clients {
		pts[i] = scalability.Point{Concurrency: n, Throughput: uslAt(sigma, kappa, lambda, n) * noise()}
	}
	return pts
}

var doubling = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestFitRecoversParameters(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		sigma, kappa, lambda float64
		clients              []float64
	}{
		// a pool-bound server: strong contention, a little coherency
		{"contended", 0.05, 0.0002, 1000, doubling},
		// goroutines: hardly any contention, peak far out
		{"scalable", 0.002, 0.000005, 900, doubling},
		// the java-platform sweep, 25…800 clients
		{"from 25 clients", 0.02, 0.00003, 40, []float64{25, 50, 100, 200, 400, 800}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := scalability.Fit(sweep(tt.sigma, tt.kappa, tt.lambda, tt.clients, func() float64 { return 1 }))
			if err != nil {
				t.Fatal(err)
			}
			if !within(m.Sigma, tt.sigma, 0.01) || !within(m.Kappa, tt.kappa, 0.01) || !within(m.Lambda, tt.lambda, 0.01) {
				t.Errorf("σ %g κ %g λ %g, want %g %g %g", m.Sigma, m.Kappa, m.Lambda, tt.sigma, tt.kappa, tt.lambda)
			}
			peak := math.Sqrt((1 - tt.sigma) / tt.kappa)
			if !within(m.Peak, peak, 0.01) || !within(m.MaxThroughput, uslAt(tt.sigma, tt.kappa, tt.lambda, peak), 0.01) {
				t.Errorf("N* %g X_max %g, want %g %g", m.Peak, m.MaxThroughput, peak, uslAt(tt.sigma, tt.kappa, tt.lambda, peak))
			}
			if m.R2 < 0.9999 || m.Poor != "" {
				t.Errorf("R² %g poor %q on exact data", m.R2, m.Poor)
			}
		})
	}
}

func TestFitNoisy(t *testing.T) {
	const sigma, kappa, lambda = 0.05, 0.0002, 1000
	peak := math.Sqrt((1 - sigma) / kappa)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		// ±5 %, as a busy machine measures
		m, err := scalability.Fit(sweep(sigma, kappa, lambda, doubling, func() float64 { return 0.95 + 0.1*rng.Float64() }))
		if err != nil {
			t.Fatal(err)
		}
		if !within(m.Peak, peak, 0.25) || !within(m.MaxThroughput, uslAt(sigma, kappa, lambda, peak), 0.10) {
			t.Errorf("seed %d: N* %.1f X_max %.0f, want about %.1f and %.0f", seed, m.Peak, m.MaxThroughput, peak, uslAt(sigma, kappa, lambda, peak))
		}
		if m.R2 < 0.95 || m.Poor != "" {
			t.Errorf("seed %d: R² %.3f poor %q", seed, m.R2, m.Poor)
		}
	}
}

func TestFitFlagsPoorFit(t *testing.T) {
	// a throughput that jumps around with the clients: no law explains it
	pts := []scalability.Point{{1, 500}, {2, 90}, {4, 700}, {8, 60}, {16, 650}, {32, 80}, {64, 600}}
	m, err := scalability.Fit(pts)
	if err != nil {
		t.Fatal(err)
	}
	if m.R2 >= scalability.PoorFit || !strings.Contains(m.Poor, "does not explain") {
		t.Errorf("R² %.2f poor %q, want the fit flagged", m.R2, m.Poor)
	}
}

func TestFitLinear(t *testing.T) {
	// perfectly linear scaling: no contention, no peak
	m, err := scalability.Fit(sweep(0, 0, 100, []float64{1, 2, 3, 4, 5, 6}, func() float64 { return 1 }))
	if err != nil {
		t.Fatal(err)
	}
	if m.Sigma > 1e-6 || m.Kappa > 1e-9 || !math.IsInf(m.Peak, 1) || !math.IsInf(m.MaxThroughput, 1) {
		t.Errorf("%+v, want no contention and no peak", m)
	}
}

func TestFitBadInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		pts  []scalability.Point
		want string
	}{
		{"five points", sweep(0.05, 0.0002, 1000, doubling[:5], func() float64 { return 1 }), "5 distinct concurrencies: a USL fit needs at least 6"},
		{"repeated clients", []scalability.Point{{1, 10}, {1, 11}, {2, 20}, {2, 19}, {4, 35}, {4, 36}, {8, 60}}, "4 distinct concurrencies"},
		{"zero throughput", []scalability.Point{{1, 10}, {2, 0}}, "point 1 (2 clients, 0 req/s)"},
		{"no points", nil, "0 distinct"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scalability.Fit(tt.pts)
			var be *bench.Error
			if !errors.As(err, &be) || be.Code != bench.EINVALID || be.Field != "sweep" || !strings.Contains(be.Message, tt.want) {
				t.Errorf("error %v, want sweep: …%s…", err, tt.want)
			}
		})
	}
}
