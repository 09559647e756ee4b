package builtin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/units"
)

// The seeds' own table layouts, one method each.

// k6 writes seed 000's k6 summary: throughput with iterations and each
// server relative to the best, latency, and each request of the loop.
func (x *expTable) k6() {
	best := 0.0
	for _, row := range x.rows {
		if t, _ := x.measured(row); t != nil {
			best = max(best, t.Total.Throughput)
		}
	}
	var thr, lat, data, reqs [][]string
	for _, row := range x.rows {
		t, why := x.measured(row)
		if t == nil {
			thr = append(thr, []string{row.Label, expSeedOnly(row, bench.FigRequests, expCount), expSeedOnly(row, bench.FigRate, expRate), expSeedOnly(row, bench.FigIterations, expCount), why, expSeedOnly(row, bench.FigRelative, expPercent), "-"})
			data = append(data, []string{row.Label, expSeedOnly(row, bench.FigErrorRate, expPercent), expSeedOnly(row, bench.FigDataReceived, expMB), expSeedOnly(row, bench.FigDataSent, expMB)})
			continue
		}
		s := t.Total
		relative := 0.0
		if best > 0 {
			relative = 100 * s.Throughput / best
		}
		thr = append(thr, []string{row.Label, expCell(float64(s.Requests), row, bench.FigRequests, expCount), expCell(s.Throughput, row, bench.FigRate, expRate),
			expCell(float64(s.Iterations), row, bench.FigIterations, expCount), expRate(s.IterationRate), expCell(relative, row, bench.FigRelative, expPercent),
			expCell(expErrorPercent(*s), row, bench.FigErrorRate, expPercent)})
		l := s.Latency
		lat = append(lat, []string{row.Label, expCell(l.Min, row, bench.FigMin, expMs), expCell(l.Mean, row, bench.FigMean, expMs), expCell(l.P50, row, bench.FigMedian, expMs),
			expCell(l.P90, row, bench.FigP90, expMs), expCell(l.P95, row, bench.FigP95, expMs), expCell(l.Max, row, bench.FigMax, expMs)})
		data = append(data, []string{row.Label, expCell(expErrorPercent(*s), row, bench.FigErrorRate, expPercent),
			expCell(float64(s.BytesIn)/1e6, row, bench.FigDataReceived, expMB), expCell(float64(s.BytesOut)/1e6, row, bench.FigDataSent, expMB)})
		for _, r := range t.Requests {
			reqs = append(reqs, []string{row.Label, r.Name, expCount(float64(r.Stats.Requests)), expRate(requestRate(r.Stats, *s)), expMs(r.Stats.Latency.Mean), expMs(r.Stats.Latency.P95), expPercent(expErrorPercent(r.Stats))})
		}
	}
	x.table("[1] throughput", []string{"SERVER", "REQUESTS", "REQ/S", "ITERATIONS", "ITERATIONS/S", "RELATIVE", "ERRORS"}, thr)
	x.table("[2] response time (ms)", []string{"SERVER", "MIN", "AVG", "MEDIAN", "P90", "P95", "MAX"}, lat)
	x.table("[3] stability (data on the wire, headers included, MB = 10^6 bytes)", []string{"SERVER", "ERRORS", "DATA RECEIVED", "DATA SENT"}, data)
	x.table("[4] each request of the loop", []string{"SERVER", "REQUEST", "REQUESTS", "REQ/S", "AVG ms", "P95 ms", "ERRORS"}, reqs)
	x.ratios()
	x.k6Analysis()
}

// k6Analysis writes seed 000's "[5] analysis" comparisons, ours with the
// seed's in parentheses: virtual threads over platform threads in
// throughput, go over virtual threads in throughput, and virtual threads'
// mean latency over go's.
func (x *expTable) k6Analysis() {
	rate, mean := map[string]float64{}, map[string]float64{}
	for _, row := range x.rows {
		if t, _ := x.measured(row); t != nil {
			rate[row.Case], mean[row.Case] = t.Total.Throughput, t.Total.Latency.Mean
		}
	}
	seed := func(fig string) map[string]float64 {
		out := map[string]float64{}
		for _, row := range x.rows {
			out[row.Case] = row.Seed[fig]
		}
		return out
	}
	var parts []string
	for _, c := range []struct {
		what         string
		a, b         string
		ours, theirs map[string]float64
	}{
		{"java-virtual's throughput over java-platform's", bench.TargetJavaVirtual, bench.TargetJavaPlatform, rate, seed(bench.FigRate)},
		{"go's throughput over java-virtual's", bench.TargetGo, bench.TargetJavaVirtual, rate, seed(bench.FigRate)},
		{"java-virtual's mean latency over go's", bench.TargetJavaVirtual, bench.TargetGo, mean, seed(bench.FigMean)},
	} {
		if c.ours[c.b] == 0 || c.ours[c.a] == 0 {
			continue
		}
		part := fmt.Sprintf("%s %s", c.what, expSigned(expPercent)(100*(c.ours[c.a]/c.ours[c.b]-1)))
		if c.theirs[c.a] > 0 && c.theirs[c.b] > 0 {
			part += fmt.Sprintf(" (%s)", expSigned(expPercent)(100*(c.theirs[c.a]/c.theirs[c.b]-1)))
		}
		parts = append(parts, part)
	}
	if len(parts) > 0 {
		x.sheet.Parts = append(x.sheet.Parts, SheetPart{Line: "[5] analysis: " + strings.Join(parts, "; "), Apart: true})
	}
}

// expMB writes a size in MB (10^6 bytes), as k6 does.
func expMB(v float64) string { return fmt.Sprintf("%.2f MB", v) }

// requestRate is one request's throughput: its own when the run counted
// its completions, else its successes over the attack's length.
func requestRate(r, total bench.Stats) float64 {
	if r.Throughput > 0 || total.Elapsed <= 0 {
		return r.Throughput
	}
	return float64(r.Successes) / total.Elapsed.D().Seconds()
}

// ratios writes the experiment's throughput ratios (seed 000's virtual /
// go and platform / go) beside the seed's (99.2 % and 68.1 %).
func (x *expTable) ratios() {
	rates, seeds := map[string]float64{}, map[string]float64{}
	for _, row := range x.rows {
		seeds[row.Case] = row.Seed[bench.FigRate]
		if t, _ := x.measured(row); t != nil {
			rates[row.Case] = t.Total.Throughput
		}
	}
	var parts []string
	for _, p := range x.exp.Ratios {
		if rates[p.B] == 0 || rates[p.A] == 0 {
			continue
		}
		part := fmt.Sprintf("%s / %s = %s", p.A, p.B, expPercent(100*rates[p.A]/rates[p.B]))
		if seeds[p.B] > 0 && seeds[p.A] > 0 {
			part += fmt.Sprintf(" (%s)", expPercent(100*seeds[p.A]/seeds[p.B]))
		}
		parts = append(parts, part)
	}
	if len(parts) > 0 {
		x.sheet.Parts = append(x.sheet.Parts, SheetPart{Line: "throughput ratios: " + strings.Join(parts, "; "), Apart: true})
	}
}

// fanout writes seed 001's outcome table per mode, with the arithmetic's
// expectation, then what each mode added to the caller's threads and
// memory, its virtual threads alive and parked, and the callee's threads.
func (x *expTable) fanout() {
	var outcome, res, calls [][]string
	for _, row := range x.rows {
		t, why := x.measured(row)
		m, ok := x.fanoutModel(row)
		if t == nil || t.Total.Fanout == nil || !ok {
			outcome = append(outcome, []string{row.Label, units.OrDash(why), expSeedOnly(row, bench.FigSeconds, expSeconds), expSeedOnly(row, bench.FigSucceeded, expCount),
				expSeedOnly(row, bench.FigFailed, expCount), expSeedOnly(row, bench.FigSuccess, expPercent), "-", "-", "-"})
			continue
		}
		f := t.Total.Fanout
		success, took := m.Expect()
		outcome = append(outcome, []string{row.Label, row.Case, expCell(f.ElapsedMs/1000, row, bench.FigSeconds, expSeconds), expCell(float64(f.Succeeded), row, bench.FigSucceeded, expCount),
			expCell(float64(f.Failed), row, bench.FigFailed, expCount), expCell(100*f.SuccessRatio(), row, bench.FigSuccess, expPercent),
			fmt.Sprintf("%s in %s s", expPercent(100*success), expSeconds(took.Seconds())), failureCauses(f.Failures), strconv.FormatInt(f.PeakConcurrent, 10)})
		res = append(res, x.fanoutResources(row, t))
		calls = append(calls, fanoutCallTimes(row, f))
	}
	x.line(x.fanoutSetup())
	x.table("outcome per mode (time in s; the seed's at scale 1)", []string{"MODE", "CASE", "TIME", "SUCCEEDED", "FAILED", "SUCCESS", "EXPECTED", "FAILURES", "PEAK CALLS"}, outcome)
	if len(calls) > 0 {
		x.table("each call (s): its own time, and from its fan-out's start to its end (the wait for a pool thread or permit in it: the seed's Duration)",
			[]string{"MODE", "CALLS", "CALL P50", "CALL P99", "CALL MAX", "DONE P50", "DONE P90", "DONE MAX"}, calls)
	}
	x.table("the caller during its fan-out: added since the idle stage (peak - idle mean), and peaks; its virtual threads at the most, as its thread dumps listed them; the callee's threads",
		[]string{"MODE", "PLATFORM THREADS", "CARRIERS", "VIRTUAL THREADS ALIVE / PARKED", "GOROUTINES", "HEAP MiB", "NMT THREAD RESERVED MiB", "NMT THREAD COMMITTED MiB", "GC PAUSES", "WORKING SET MiB", "CALLEE THREADS"}, res)
}

// fanoutCallTimes is a mode's calls' times in seconds, from the
// histograms its fan-outs sent; dashes where the target sent none.
func fanoutCallTimes(row bench.SeedRow, f *bench.FanoutStats) []string {
	out := []string{row.Label, expCount(float64(f.Calls))}
	for _, l := range []*bench.Latency{f.Call, f.Done} {
		if l == nil {
			out = append(out, "-", "-", "-")
			continue
		}
		second := l.P99
		if l == f.Done {
			second = l.P90
		}
		out = append(out, callSeconds(l.P50), callSeconds(second), callSeconds(l.Max))
	}
	return out
}

// callSeconds writes a call's time, ms, in seconds to the millisecond:
// calls of one fan-out differ by milliseconds where the callee answers
// them all in time.
func callSeconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// fanoutSetup describes the fan-out and the callee, from the run's spec.
func (x *expTable) fanoutSetup() string {
	for _, row := range x.rows {
		if m, ok := x.fanoutModel(row); ok {
			return fmt.Sprintf("%d calls of %s each, limit %d, read timeout %s; callee %s with %d workers (expected: success = workers / calls for unbounded modes when the timeout is under two service times)",
				m.Calls, m.Service, m.Limit, m.Timeout, x.run.Spec.Downstream.Target, m.Workers)
		}
	}
	return ""
}

// fanoutModel reads a row's fan-out from its case's workload.
func (x *expTable) fanoutModel(row bench.SeedRow) (FanoutModel, bool) {
	spec := x.run.Spec
	if spec.Downstream == nil {
		return FanoutModel{}, false
	}
	for _, c := range spec.RunCases() {
		if c.Name != row.Case {
			continue
		}
		for _, r := range append(spec.ForCase(c).Workload.Requests, spec.ForCase(c).Workload.IterationRequests()...) {
			if r.Endpoint == "fanout" {
				return fanoutParams(r.Params, spec.Downstream.Workers), true
			}
		}
	}
	return FanoutModel{}, false
}

func fanoutParams(p map[string]string, workers int) FanoutModel {
	atoi := func(k string) int { n, _ := strconv.Atoi(p[k]); return n }
	return FanoutModel{Calls: atoi("calls"), Limit: atoi("limit"), Mode: p["mode"], Workers: workers,
		Service: time.Duration(atoi("duration")) * time.Millisecond, Timeout: time.Duration(atoi("timeout")) * time.Millisecond}
}

// failureCauses lists the causes of failed calls: "readTimeout 790, connectTimeout 10".
func failureCauses(f bench.FanoutFailures) string {
	var parts []string
	for _, c := range []struct {
		name string
		n    int64
	}{{"readTimeout", f.ReadTimeout}, {"connectTimeout", f.ConnectTimeout}, {"refused", f.Refused}, {"other", f.Other}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, c.n))
		}
	}
	return units.OrDash(strings.Join(parts, ", "))
}

// fanoutResources is one mode's row of threads and memory: the fan-out
// stage (1) against the idle stage (0) before it. Memory is in MiB, as the
// seed gives its NMT figures.
func (x *expTable) fanoutResources(row bench.SeedRow, t *bench.TargetResult) []string {
	idle, fan := expStageResources(t, 0), expStageResources(t, 1)
	added := func(m, idleM map[string]bench.Gauge, key, fig string, unit float64, format func(float64) string) string {
		g, ok := m[key]
		if !ok {
			return "-"
		}
		return expCell((g.Peak-idleM[key].Mean)/unit, row, fig, expSigned(format)) + " → " + format(g.Peak/unit)
	}
	peak := func(m map[string]bench.Gauge, key string, unit float64, format func(float64) string) string {
		if g, ok := m[key]; ok {
			return format(g.Peak / unit)
		}
		return "-"
	}
	return []string{row.Label,
		added(fan.Threads, idle.Threads, bench.ThreadPlatform, bench.FigThreadsAdded, 1, expCount),
		peak(fan.Threads, bench.ThreadCarrier, 1, expCount),
		fanoutVirtualThreads(t, 1),
		peak(fan.Threads, bench.ThreadGoroutine, 1, expCount),
		added(fan.Memory, idle.Memory, bench.MemoryHeap, "", mebibyte, expOneDecimal),
		added(fan.Memory, idle.Memory, bench.MemoryThreadStacksReserved, bench.FigStacksReserved, mebibyte, expOneDecimal),
		added(fan.Memory, idle.Memory, bench.MemoryThreadStacks, bench.FigStacksCommitted, mebibyte, expOneDecimal),
		expCount(fan.GCPauses),
		peak(fan.Memory, bench.MemoryWorkingSet, mebibyte, expOneDecimal),
		peak(expDownstreamResources(t, 1).Threads, bench.ThreadPlatform, 1, expCount),
	}
}

// fanoutVirtualThreads is the caller's virtual threads in a stage as its
// thread dumps listed them, the most alive and the most parked (seed 001's
// requests that wait as parked virtual threads); a dash where the dumps
// listed none (platform threads, goroutines, no recording).
func fanoutVirtualThreads(t *bench.TargetResult, stage int) string {
	if t.Inside == nil {
		return "-"
	}
	for _, v := range t.Inside.VirtualThreads {
		if v.Stage == stage && v.PeakAlive > 0 {
			return fmt.Sprintf("%d / %d", v.PeakAlive, v.PeakParked)
		}
	}
	return "-"
}

// mebibyte is the bytes in a MiB.
const mebibyte = 1 << 20

// stages writes the error rate and throughput of each case in each stage
// of a staged attack.
func (x *expTable) stages() {
	header, tables := x.perStage(
		func(t *bench.TargetResult, i int) string { return expPercent(expErrorPercent(t.Stages[i].Stats)) },
		func(t *bench.TargetResult, i int) string { return expRate(t.Stages[i].Stats.Throughput) })
	x.table("error rate per stage", header, tables[0])
	x.table("throughput per stage (successful req/s)", header, tables[1])
}

// perStage builds a table for each cell function: a row per case, a
// column per stage of the profile (the cell of result t in stage i); a
// stage a case did not measure says why.
func (x *expTable) perStage(cells ...func(t *bench.TargetResult, i int) string) (header []string, tables [][][]string) {
	header = []string{"CASE"}
	for _, st := range x.run.Spec.Profile.Stages {
		header = append(header, fmt.Sprintf("%s (%d clients)", units.OrDash(st.Name), st.Concurrency))
	}
	tables = make([][][]string, len(cells))
	for _, row := range x.rows {
		t, why := x.measured(row)
		for c, cell := range cells {
			r := []string{row.Label}
			for i := range x.run.Spec.Profile.Stages {
				if t == nil || i >= len(t.Stages) {
					r = append(r, units.OrDash(why))
					continue
				}
				r = append(r, cell(t, i))
			}
			tables[c] = append(tables[c], r)
		}
	}
	return header, tables
}

// ngrinder writes nGrinder's summary: TPS, peak TPS, mean test time,
// tests executed and successful, error rate and virtual users. TPS and
// MTT are the hold's, the last stage.
func (x *expTable) ngrinder() {
	vusers := 0
	for _, st := range x.run.Spec.Profile.Stages {
		vusers = max(vusers, st.Concurrency)
	}
	var rows [][]string
	for _, row := range x.rows {
		t, why := x.measured(row)
		if t == nil {
			rows = append(rows, []string{row.Label, why, expSeedOnly(row, bench.FigTPS, expRate), expSeedOnly(row, bench.FigPeakTPS, expRate), expSeedOnly(row, bench.FigMTT, expMs),
				expSeedOnly(row, bench.FigTests, expCount), expSeedOnly(row, bench.FigSuccessfulTests, expCount), expSeedOnly(row, bench.FigErrorRate, expPercent), expSeedOnly(row, bench.FigVusers, expCount)})
			continue
		}
		s, hold := t.Total, *t.Total
		if len(t.Stages) > 0 {
			hold = t.Stages[len(t.Stages)-1].Stats
		}
		rows = append(rows, []string{row.Label, row.Case, expCell(hold.Throughput, row, bench.FigTPS, expRate), expCell(peakThroughput(t), row, bench.FigPeakTPS, expRate),
			expCell(hold.Latency.Mean, row, bench.FigMTT, expMs), expCell(float64(s.Requests), row, bench.FigTests, expCount),
			expCell(float64(s.Successes), row, bench.FigSuccessfulTests, expCount), expCell(expErrorPercent(*s), row, bench.FigErrorRate, expPercent),
			expCell(float64(vusers), row, bench.FigVusers, expCount)})
	}
	x.table("nGrinder summary (TPS and MTT over the last stage, the hold: a ramp of 10 s weighs little in the seed's 5 minutes, much in ours; tests over the whole test)", []string{"TEST", "CASE", "TPS", "PEAK TPS", "MTT ms", "TESTS", "SUCCESSFUL", "ERRORS", "VUSERS"}, rows)
}

// cpu writes the CPU-bound experiment's table: each runtime's throughput,
// latency and CPU per request on its one CPU, then the ratios the seeds'
// claim is about (virtual / platform) and the claim beside them.
func (x *expTable) cpu() {
	var rows [][]string
	cost := map[string]float64{}
	for _, row := range x.rows {
		t, why := x.measured(row)
		if t == nil {
			rows = append(rows, []string{row.Label, why, "-", "-", "-", "-", "-", "-"})
			continue
		}
		s := t.Total
		cpu := cpuPer1k(t)
		cost[row.Case] = cpu
		rows = append(rows, []string{row.Label, row.Case, expRate(s.Throughput), expMs(s.Latency.P50), expMs(s.Latency.P99),
			units.OrDash(expCPU(cpu)), units.OrDash(expThreads(peakThreads(t))), expPercent(expErrorPercent(*s))})
	}
	x.table("CPU-bound work, one CPU each (the measured stage)", []string{"RUNTIME", "CASE", "REQ/S", "P50 ms", "P99 ms", "CPU s / 1k req", "PEAK THREADS", "ERRORS"}, rows)
	x.ratios()
	if p, v := cost[bench.TargetJavaPlatform], cost[bench.TargetJavaVirtual]; p > 0 && v > 0 {
		x.line(fmt.Sprintf("the seeds' claim: virtual threads bring no advantage on CPU-bound work; ours: a virtual thread's request cost %s of a platform thread's CPU", expPercent(100*v/p)))
	}
}

// cpuPer1k is a target's CPU seconds per 1,000 responses over its measured
// stages, weighted by the responses completed in each; 0 when the CPU was
// not read.
func cpuPer1k(t *bench.TargetResult) float64 {
	var cpu, requests float64
	for _, r := range t.Resources {
		if r.Warmup || r.CPUSecondsPer1k <= 0 {
			continue
		}
		for _, st := range t.Stages {
			if st.Index == r.Stage && !st.Warmup {
				cpu += r.CPUSecondsPer1k * float64(st.Stats.Completed)
				requests += float64(st.Stats.Completed)
			}
		}
	}
	if requests == 0 {
		return 0
	}
	return cpu / requests
}

// expCPU writes CPU seconds per 1,000 requests; "" when not read.
func expCPU(v float64) string {
	if v <= 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// expThreads writes a thread count; "" when none was read.
func expThreads(v float64) string {
	if v <= 0 {
		return ""
	}
	return expCount(v)
}

// peakThreads is the most OS threads a target ran in a measured stage.
func peakThreads(t *bench.TargetResult) float64 {
	peak := 0.0
	for _, r := range t.Resources {
		if !r.Warmup {
			peak = max(peak, r.Threads[bench.ThreadPlatform].Peak)
		}
	}
	return peak
}

// peakThroughput is the highest per-second throughput of the attack.
func peakThroughput(t *bench.TargetResult) float64 {
	peak := 0.0
	for _, b := range t.Seconds {
		if b.Second >= 0 {
			peak = max(peak, b.Stats.Throughput)
		}
	}
	return peak
}

// locust writes Locust's statistics table, one row per case, with the
// pinning the Java target's JFR saw and the JDK that ran.
func (x *expTable) locust() {
	var rows [][]string
	for _, row := range x.rows {
		t, why := x.measured(row)
		if t == nil {
			rows = append(rows, []string{row.Label, why, expSeedOnly(row, bench.FigRequests, expCount), expSeedOnly(row, bench.FigFails, expCount), "-", "-", "-", "-", "-",
				expSeedOnly(row, bench.FigRate, expRate), "-", "-", "-", "-"})
			continue
		}
		s, res := t.Total, expStageResources(t, 0)
		fails := float64(s.Requests - s.Successes)
		failsPerSec := 0.0
		if secs := s.Elapsed.D().Seconds(); secs > 0 {
			failsPerSec = fails / secs
		}
		l := s.Latency
		rows = append(rows, []string{row.Label, row.Case, expCell(float64(s.Requests), row, bench.FigRequests, expCount),
			expCell(fails, row, bench.FigFails, expCount), expPercent(expErrorPercent(*s)),
			expCell(l.Mean, row, bench.FigMean, expCount), expCell(l.Min, row, bench.FigMin, expCount), expCell(l.Max, row, bench.FigMax, expCount),
			expCell(l.P50, row, bench.FigMedian, expCount), expCell(s.Throughput, row, bench.FigRate, expRate),
			expCell(failsPerSec, row, bench.FigFailuresPerSec, expRate), expCount(res.Pinned), fmt.Sprintf("%.2f", res.PinnedSeconds), units.OrDash(t.Image.Runtime)})
	}
	x.table("Locust statistics (latency in ms, of the requests answered)",
		[]string{"NAME", "CASE", "# REQS", "# FAILS", "FAILS %", "AVG", "MIN", "MAX", "MEDIAN", "REQ/S", "FAILURES/S", "PINNED", "TIME PINNED s", "RUNTIME"}, rows)
}
