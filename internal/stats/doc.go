// Package stats holds the statistics behind the reports and `compare`: a
// centre with a confidence interval for one set of values, and a test of
// whether two sets differ.
//
// Two kinds of values reach it, and each gets the method its shape allows:
//
//   - Per-round values (one figure per repeated run or round) are few, often
//     3 to 10, and benchmark figures are rarely normal: they are skewed and
//     have outliers. So they are summarised by Median, whose interval is
//     distribution-free (order statistics of the binomial distribution), and
//     two of them are compared by Compare, a Mann-Whitney U test. Both come
//     from golang.org/x/perf/benchmath, benchstat's statistics, under its
//     AssumeNothing assumption. The price of assuming nothing is power: a 95%
//     median interval needs at least 6 values, and two samples of 3 can never
//     differ at alpha 0.05 (the smallest p for 3+3 is 0.1). This package says
//     so in Warnings rather than invent an interval or a verdict.
//
//   - Within-run values (e.g. per-second throughput of one stage, in time
//     order) are many but autocorrelated: a slow second tends to follow a slow
//     second, so s/√n of the raw values understates the uncertainty. So they
//     are summarised by BatchMeans: the values are cut into k consecutive
//     batches whose means are close to independent, and the interval is
//     Student's t over those k means. Such an interval speaks for one run
//     only; it says nothing about run-to-run variation.
//
// Every result type encodes to JSON safely: an interval that does not exist
// is reported with HasInterval false and Lo = Hi = Center, never as NaN or
// ±Inf, and non-finite input values are dropped with a warning.
package stats
