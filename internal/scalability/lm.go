package scalability

import "math"

// levenbergMarquardt refines p = (λ, σ, κ) by damped Gauss–Newton steps
// on the squared throughput residuals, keeping σ and κ non-negative (a
// negative one has no physical meaning) and λ positive.
func levenbergMarquardt(pts []Point, p [3]float64) [3]float64 {
	mu := 1e-3
	cost := sse(pts, p)
	for range 500 {
		jtj, jtr := normalEquations(pts, p)
		improved := false
		for range 30 {
			step, ok := solve3(damped(jtj, mu), jtr)
			if !ok {
				mu *= 10
				continue
			}
			next := [3]float64{p[0] + step[0], math.Max(p[1]+step[1], 0), math.Max(p[2]+step[2], 0)}
			if next[0] <= 0 {
				next[0] = p[0] / 2
			}
			if c := sse(pts, next); c < cost {
				converged := cost-c < 1e-12*cost
				p, cost, mu, improved = next, c, mu/10, true
				if converged {
					return p
				}
				break
			}
			mu *= 10
		}
		if !improved {
			return p
		}
	}
	return p
}

func sse(pts []Point, p [3]float64) float64 {
	var s float64
	for _, pt := range pts {
		r := pt.Throughput - usl(p[1], p[2], p[0], pt.Concurrency)
		s += r * r
	}
	return s
}

// normalEquations returns JᵀJ and Jᵀr of the residuals r = X − model.
func normalEquations(pts []Point, p [3]float64) (jtj [3][3]float64, jtr [3]float64) {
	lambda, sigma, kappa := p[0], p[1], p[2]
	for _, pt := range pts {
		n := pt.Concurrency
		d := 1 + sigma*(n-1) + kappa*n*(n-1)
		grad := [3]float64{n / d, -lambda * n * (n - 1) / (d * d), -lambda * n * n * (n - 1) / (d * d)}
		r := pt.Throughput - lambda*n/d
		for i := range 3 {
			jtr[i] += grad[i] * r
			for j := range 3 {
				jtj[i][j] += grad[i] * grad[j]
			}
		}
	}
	return jtj, jtr
}

// damped adds μ times the diagonal (Marquardt's scaling) to JᵀJ.
func damped(a [3][3]float64, mu float64) [3][3]float64 {
	for i := range 3 {
		a[i][i] += mu * math.Max(a[i][i], 1e-12)
	}
	return a
}

// solve3 solves a·x = b by Gaussian elimination with partial pivoting.
func solve3(a [3][3]float64, b [3]float64) ([3]float64, bool) {
	for col := range 3 {
		pivot := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[pivot][col]) {
				pivot = r
			}
		}
		if a[pivot][col] == 0 {
			return [3]float64{}, false
		}
		a[col], a[pivot] = a[pivot], a[col]
		b[col], b[pivot] = b[pivot], b[col]
		for r := col + 1; r < 3; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c < 3; c++ {
				a[r][c] -= f * a[col][c]
			}
			b[r] -= f * b[col]
		}
	}
	var x [3]float64
	for r := 2; r >= 0; r-- {
		x[r] = b[r]
		for c := r + 1; c < 3; c++ {
			x[r] -= a[r][c] * x[c]
		}
		x[r] /= a[r][r]
	}
	return x, true
}
