package stats

import "math"

// TQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom, e.g. TQuantile(0.975, 9) = 2.2622. It returns NaN
// unless 0 < p < 1 and df > 0.
//
// It inverts the distribution function by bisection, which is slow next to
// a closed-form approximation but accurate to ~1e-12 for every df, and is
// called once per interval.
func TQuantile(p, df float64) float64 {
	switch {
	case !(p > 0 && p < 1) || !(df > 0):
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, df) // the distribution is symmetric
	}
	hi := 1.0
	for tCDF(hi, df) < p {
		hi *= 2
	}
	lo := 0.0
	for range 200 { // far more halvings than float64 precision needs
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tCDF is Student's t distribution function for t ≥ 0:
// 1 - I_x(df/2, 1/2)/2 with x = df/(df+t²).
func tCDF(t, df float64) float64 {
	// x and 1-x are both computed from their own ratio: with a large df,
	// x is within 1e-6 of 1 and 1-x taken by subtraction would lose digits.
	x, xc := df/(df+t*t), t*t/(df+t*t)
	return 1 - regIncBeta(x, xc, df/2, 0.5)/2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), given
// x and its complement xc = 1-x, evaluated by its continued fraction on
// whichever side converges fast (Numerical Recipes, §6.4).
func regIncBeta(x, xc, a, b float64) float64 {
	if x <= 0 {
		return 0
	}
	if xc <= 0 {
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	front := math.Exp(lgab - lga - lgb + a*math.Log(x) + b*math.Log(xc))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(xc, b, a)/b
}

// betaFraction evaluates the continued fraction of the incomplete beta
// function by the modified Lentz method.
func betaFraction(x, a, b float64) float64 {
	const tiny, epsilon = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	d = 1 / nonZero(d, tiny)
	h := d
	for m := 1.0; m <= 1000; m++ {
		// Even step: d_{2m}.
		coef := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / nonZero(1+coef*d, tiny)
		c = nonZero(1+coef/c, tiny)
		h *= d * c
		// Odd step: d_{2m+1}.
		coef = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / nonZero(1+coef*d, tiny)
		c = nonZero(1+coef/c, tiny)
		delta := d * c
		h *= delta
		if math.Abs(delta-1) < epsilon {
			break
		}
	}
	return h
}

// nonZero returns v, or tiny when v is too close to zero to divide by.
func nonZero(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
