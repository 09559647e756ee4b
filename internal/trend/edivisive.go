package trend

import (
	"math"
	"math/rand/v2"
)

// Method names how change points are found, as reports state it.
const Method = "e-divisive means (Matteson & James 2014), permutation test"

// The defaults of Options.
const (
	// DefaultAlpha is the significance level of each split's permutation
	// test: on a series of noise alone, a change point is reported with
	// about this probability.
	DefaultAlpha = 0.05
	// DefaultPermutations is how many shuffles each test compares with.
	DefaultPermutations = 999
	// DefaultMinSize is the fewest runs on each side of a change point.
	DefaultMinSize = 3
	// DefaultSeed seeds the shuffles: the same series gives the same result.
	DefaultSeed = 20141
)

// Options are the rules of a search for change points; zero fields take
// the defaults above.
type Options struct {
	Alpha        float64
	Permutations int
	MinSize      int
	Seed         uint64
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultPermutations
	}
	if o.MinSize < 2 { // the within-segment means need two values a side
		o.MinSize = DefaultMinSize
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// Split is a change point in a series of values: Index is the first value
// after the change; PValue is its permutation test's.
type Split struct {
	Index  int
	PValue float64
}

// Splits returns the change points of values in order, by recursive
// bisection: a segment splits at the point of its largest energy
// statistic when a permutation test finds that statistic significant at
// o.Alpha, and each side is searched again. Each segment's shuffles are
// seeded by o.Seed and the segment's bounds, so a segment whose values do
// not change keeps its result when values are added after it.
func Splits(values []float64, o Options) []Split {
	o = o.withDefaults()
	var out []Split
	var search func(start, end int)
	search = func(start, end int) {
		seg := values[start:end]
		at, q, ok := bestSplit(seg, o.MinSize)
		if !ok {
			return
		}
		p := permutationP(seg, q, o, rand.New(rand.NewPCG(o.Seed, uint64(start)<<32|uint64(end))))
		if p > o.Alpha {
			return
		}
		search(start, start+at)
		out = append(out, Split{Index: start + at, PValue: p})
		search(start+at, end)
	}
	search(0, len(values))
	return out
}

// bestSplit returns the split of seg with the largest energy statistic
// Q(tau, kappa) of Matteson and James (eq. 4, exponent 1): the first tau
// values against the next kappa-tau, kappa up to the segment's end, so
// that a change that later reverts is seen too. Each side has at least
// minSize values.
func bestSplit(seg []float64, minSize int) (at int, q float64, ok bool) {
	m := len(seg)
	if m < 2*minSize {
		return 0, 0, false
	}
	d := newDistances(seg)
	q = math.Inf(-1)
	for tau := minSize; tau <= m-minSize; tau++ {
		left := d.block(0, tau, 0, tau) / 2
		for kappa := tau + minSize; kappa <= m; kappa++ {
			right := d.block(tau, kappa, tau, kappa) / 2
			cross := d.block(0, tau, tau, kappa)
			if s := energy(left, right, cross, tau, kappa); s > q {
				at, q, ok = tau, s, true
			}
		}
	}
	return at, q, ok
}

// distances are the sums of |x-y| over the blocks of a segment's distance
// matrix, from its two-dimensional prefix sums.
type distances struct {
	n   int
	sum []float64 // sum[i*(n+1)+j]: over rows before i and columns before j
}

func newDistances(seg []float64) distances {
	n := len(seg)
	d := distances{n: n, sum: make([]float64, (n+1)*(n+1))}
	for i := 1; i <= n; i++ {
		var row float64
		for j := 1; j <= n; j++ {
			row += math.Abs(seg[i-1] - seg[j-1])
			d.sum[i*(n+1)+j] = d.sum[(i-1)*(n+1)+j] + row
		}
	}
	return d
}

// block is the sum of |seg[i]-seg[j]| over rows i in [r0,r1) and columns
// j in [c0,c1).
func (d distances) block(r0, r1, c0, c1 int) float64 {
	w := d.n + 1
	return d.sum[r1*w+c1] - d.sum[r0*w+c1] - d.sum[r1*w+c0] + d.sum[r0*w+c0]
}

// energy is the scaled divergence of the first tau values of kappa from
// the other kappa-tau: (tau(kappa-tau)/kappa) times twice the mean
// distance between the parts less each part's mean distance within.
func energy(left, right, cross float64, tau, kappa int) float64 {
	n1, n2 := float64(tau), float64(kappa-tau)
	e := 2*cross/(n1*n2) - 2*left/(n1*(n1-1)) - 2*right/(n2*(n2-1))
	return n1 * n2 / float64(kappa) * e
}

// permutationP is the share of shuffles of seg (the observed order counted
// as one) whose best split is at least q: the test's p-value.
func permutationP(seg []float64, q float64, o Options, rng *rand.Rand) float64 {
	shuffled := append([]float64(nil), seg...)
	atLeast := 1
	for range o.Permutations {
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if _, s, _ := bestSplit(shuffled, o.MinSize); s >= q*(1-1e-12) {
			atLeast++
		}
	}
	return float64(atLeast) / float64(o.Permutations+1)
}
