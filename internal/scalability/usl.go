// Package scalability fits Gunther's Universal Scalability Law to the
// throughput a closed-model concurrency sweep measured:
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// σ is contention (the serial share: a lock, a pool), κ coherency (the
// cost of keeping in step, growing with N²), λ the throughput of one
// client. With κ > 0 the throughput peaks at N* = √((1−σ)/κ) and falls
// after it.
//
// The fit is a Levenberg–Marquardt least squares on the throughput, as
// github.com/codahale/usl does; that module is not served by the module
// proxy here, so the few lines it needs are written out below.
package scalability

import (
	"fmt"
	"math"
	"sort"

	"github.com/threadbench/threadbench/internal/bench"
)

// MinPoints is the fewest sweep points a fit accepts: three parameters
// and enough left over to judge the fit.
const MinPoints = 6

// PoorFit is the coefficient of determination below which a fit is
// flagged as too poor to explain the measurements.
const PoorFit = 0.90

// Point is one step of a sweep: the clients in flight and the throughput
// they measured, req/s.
type Point struct {
	Concurrency float64 `json:"concurrency"`
	Throughput  float64 `json:"throughput"`
}

// Model is a fitted USL and what it predicts.
type Model struct {
	Sigma  float64 `json:"sigma"`  // contention
	Kappa  float64 `json:"kappa"`  // coherency
	Lambda float64 `json:"lambda"` // throughput of one client, req/s
	// Peak is N*, the concurrency of the highest throughput; +Inf (written
	// as 0 in JSON by the caller) when κ is 0 and throughput never falls.
	Peak float64 `json:"peak"`
	// MaxThroughput is X(N*), or the asymptote λ/σ without a peak; +Inf
	// for linear scaling.
	MaxThroughput float64 `json:"maxThroughput"`
	R2            float64 `json:"r2"` // coefficient of determination of the throughput
	// Poor says why the fit is too poor to use; empty for a usable fit.
	Poor   string  `json:"poor,omitempty"`
	Points []Point `json:"points"`
}

// Throughput is the model's throughput at concurrency n.
func (m *Model) Throughput(n float64) float64 {
	return usl(m.Sigma, m.Kappa, m.Lambda, n)
}

func usl(sigma, kappa, lambda, n float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// Fit fits the USL to a sweep's points. Fewer than MinPoints distinct
// concurrencies, or a point without a positive concurrency and throughput,
// is an EINVALID error about the "sweep".
func Fit(points []Point) (*Model, error) {
	if err := check(points); err != nil {
		return nil, err
	}
	pts := append([]Point(nil), points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].Concurrency < pts[j].Concurrency })
	p := levenbergMarquardt(pts, initial(pts))
	m := &Model{Sigma: p[1], Kappa: p[2], Lambda: p[0], Points: pts}
	m.predict()
	m.R2 = rSquared(pts, m)
	m.Poor = poorness(m)
	return m, nil
}

func check(points []Point) error {
	seen := map[float64]bool{}
	for i, p := range points {
		if !(p.Concurrency > 0) || !(p.Throughput > 0) || math.IsInf(p.Throughput, 0) {
			return bench.FieldErrorf("sweep", "point %d (%g clients, %g req/s): a fit needs a positive concurrency and throughput", i, p.Concurrency, p.Throughput)
		}
		seen[p.Concurrency] = true
	}
	if len(seen) < MinPoints {
		return bench.FieldErrorf("sweep", "%d distinct concurrencies: a USL fit needs at least %d", len(seen), MinPoints)
	}
	return nil
}

// predict sets the peak and the highest throughput from the parameters.
func (m *Model) predict() {
	switch {
	case m.Kappa > 0:
		m.Peak = math.Sqrt((1 - m.Sigma) / m.Kappa)
		m.MaxThroughput = m.Throughput(m.Peak)
	case m.Sigma > 0:
		m.Peak, m.MaxThroughput = math.Inf(1), m.Lambda/m.Sigma
	default:
		m.Peak, m.MaxThroughput = math.Inf(1), math.Inf(1)
	}
}

func rSquared(pts []Point, m *Model) float64 {
	var mean, ssTot, ssRes float64
	for _, p := range pts {
		mean += p.Throughput
	}
	mean /= float64(len(pts))
	for _, p := range pts {
		ssTot += (p.Throughput - mean) * (p.Throughput - mean)
		r := p.Throughput - m.Throughput(p.Concurrency)
		ssRes += r * r
	}
	if ssTot == 0 {
		return 1
	}
	return 1 - ssRes/ssTot
}

func poorness(m *Model) string {
	switch {
	case m.R2 < PoorFit:
		return fmt.Sprintf("R² %.2f is below %.2f: the USL does not explain these measurements", m.R2, PoorFit)
	case m.Sigma >= 1:
		return fmt.Sprintf("σ %.2f is not below 1: throughput does not grow with clients", m.Sigma)
	}
	return ""
}

// initial guesses the parameters: λ from the fewest clients, σ and κ by
// least squares on the linear form λN/X − 1 = σ(N−1) + κN(N−1).
func initial(pts []Point) [3]float64 {
	lambda := pts[0].Throughput / pts[0].Concurrency
	// Σ over points of a·σ + b·κ ≈ y, normal equations in two unknowns
	var aa, ab, bb, ay, by float64
	for _, p := range pts {
		a, b := p.Concurrency-1, p.Concurrency*(p.Concurrency-1)
		y := lambda*p.Concurrency/p.Throughput - 1
		aa, ab, bb, ay, by = aa+a*a, ab+a*b, bb+b*b, ay+a*y, by+b*y
	}
	sigma, kappa := 0.0, 0.0
	if det := aa*bb - ab*ab; det != 0 {
		sigma, kappa = (ay*bb-by*ab)/det, (aa*by-ab*ay)/det
	}
	return [3]float64{lambda, math.Max(sigma, 0), math.Max(kappa, 0)}
}
