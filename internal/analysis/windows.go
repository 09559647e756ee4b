package analysis

import (
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/steady"
)

// scopeDef is the part of an attack a report scope covers: the whole
// attack (stage nil) or one stage, with the load it offered.
type scopeDef struct {
	stage       *int
	name        string // "whole attack", "stage 2 (c400)"
	stageName   string // the stage's own name, "c400"
	model       bench.LoadModel
	ramp        bool
	concurrency int // closed: clients at the end of the stage
	from        int // closed: clients at its start (the previous stage's, on a ramp)
	rate        float64
	duration    bench.Duration

	// trial is, in a capacity run, the rate and length of the trials the
	// scope sets side by side; nil otherwise.
	trial *trialKey
}

// window is one round of a subject in one scope: its stored figures,
// histograms, per-request figures, per-second buckets and resources.
type window struct {
	stats     bench.Stats
	hists     []string // nil when a latency was stored without its histogram
	requests  []bench.NamedStats
	seconds   []bench.Bucket // every bucket of the scope; nil when they sample no one load (a whole attack of several stages)
	steady    []bench.Bucket // the steady part of a hold stage; nil otherwise
	part      *steady.Part   // where the steady part of a hold stage begins; nil otherwise
	notSteady []string       // the hold stages with no steady part ("stage 1 (c50)"): no verdict from this window
	wholeLat  bool           // the latency is the whole stage's: its seconds kept no histogram
	resources ResourceSummary
	hasRes    bool
	flags     []bench.Flag
}

// windowOf returns one round's window on a scope, or false when the round
// did not measure it.
func windowOf(t *bench.TargetResult, sc scopeDef, stages []scopeDef) (window, bool) {
	if sc.trial != nil {
		s, ok := sc.trial.first(t)
		if !ok {
			return window{}, false
		}
		return stageWindow(t, s, sc), true
	}
	if sc.stage == nil {
		return wholeWindow(t, stages)
	}
	for _, s := range MeasuredStages(t) {
		if s.Index == *sc.stage && s.Stats.Requests > 0 {
			return stageWindow(t, s, sc), true
		}
	}
	return window{}, false
}

func wholeWindow(t *bench.TargetResult, stages []scopeDef) (window, bool) {
	m := WholeAttack(t)
	if t.Total == nil || t.Total.Requests == 0 {
		return window{}, false
	}
	w := window{stats: m.Stats, hists: m.Histograms, requests: t.Requests, seconds: steady.FullSeconds(t.Seconds)}
	w.resources, w.hasRes = SummarizeResources(t)
	measured := MeasuredStages(t)
	for _, s := range measured {
		for _, f := range s.Flags {
			f.Reason = StageLabel(s.Index, s.Name) + ": " + f.Reason
			w.flags = append(w.flags, f)
		}
	}
	// A profile of one hold stage is that stage: its steady part serves.
	// Across stages of different loads the seconds are no sample of one
	// thing: such a whole attack is tested stage by stage.
	switch {
	case len(stages) != 1:
		w.seconds = nil
	case len(measured) == 1 && !stages[0].ramp:
		w.keepSteady(SecondsOf(t, measured[0].Index), StageLabel(measured[0].Index, measured[0].Name))
		return w, true
	}
	for _, s := range measured {
		if !isRamp(stages, s.Index) && !steady.OfSeconds(SecondsOf(t, s.Index)).Steady {
			w.notSteady = append(w.notSteady, StageLabel(s.Index, s.Name))
		}
	}
	return w, true
}

// isRamp reports whether stage index is a ramp.
func isRamp(stages []scopeDef, index int) bool {
	for _, sc := range stages {
		if *sc.stage == index {
			return sc.ramp
		}
	}
	return false
}

func stageWindow(t *bench.TargetResult, s bench.StageResult, sc scopeDef) window {
	m := StageMeasured(s)
	w := window{stats: m.Stats, hists: m.Histograms, requests: s.Requests, flags: s.Flags,
		seconds: SecondsOf(t, s.Index)}
	if !sc.ramp {
		w.keepSteady(w.seconds, sc.name)
	}
	for _, r := range t.Resources {
		if !r.Warmup && r.Stage == s.Index {
			w.resources, w.hasRes = StageSummary(r), true
		}
	}
	return w
}

// SecondsOf returns the full seconds that fell in stage index
// (steady.StageSeconds).
func SecondsOf(t *bench.TargetResult, index int) []bench.Bucket { return steady.StageSeconds(t, index) }

// keepSteady finds the steady part of a hold stage's seconds and, when a
// transient was cut, takes the window's figures from the seconds kept:
// counts and rates summed, latency from their merged histograms (the whole
// stage's when its seconds kept none).
func (w *window) keepSteady(seconds []bench.Bucket, name string) {
	rate, part, rated := steady.StageRate(seconds)
	w.part = &part
	if !part.Steady {
		w.notSteady = []string{name}
	}
	if len(seconds) == 0 {
		return
	}
	w.steady = part.Kept(seconds)
	if part.Start == 0 && part.EndCut == 0 {
		if rated {
			w.stats.Throughput = rate
		}
		return
	}
	st, hists, ok := steady.Stats(w.steady)
	if !ok {
		st.Latency, st.Histogram, hists, w.wholeLat = w.stats.Latency, w.stats.Histogram, w.hists, true
	}
	st.ServiceTime, st.Fanout = w.stats.ServiceTime, w.stats.Fanout
	w.stats, w.hists = st, hists
}

// Plain is one round's figures in one scope, latency recomputed from the
// histograms when they were kept.
type Plain struct {
	Requests, Completed, Errors int64
	BytesIn, BytesOut           int64
	Throughput, ErrorRate       float64
	Latency                     bench.Latency
	storedLatency               bool  // no histogram, or an unreadable one: the stored summary was used
	histErr                     error // why the histograms could not be read
	answered                    bool  // throughput counts answers to the window's requests, not completions
}

// PlainOf is a window's plain figures from its stats, its latency from the
// merged histograms when there are any.
func PlainOf(st bench.Stats, hists []string) Plain {
	p := Plain{Requests: st.Requests, Completed: st.Completed, Errors: st.Requests - st.Successes,
		BytesIn: st.BytesIn, BytesOut: st.BytesOut, Throughput: st.Throughput, ErrorRate: ErrorRate(st),
		Latency: st.Latency, storedLatency: true}
	if hists == nil {
		return p
	}
	h, err := hdr.Merge(hists...)
	if err != nil {
		p.histErr = err
		return p
	}
	p.Latency, p.storedLatency = hdr.Summarize(h), false
	return p
}

// RequestPlain returns the figures of one request of a window. Runs
// recorded before completions were counted per request have none: its
// throughput is then the requests of it answered among those sent in the
// window, per second of the window.
func RequestPlain(ns bench.NamedStats) Plain {
	var hists []string
	if ns.Stats.Histogram != "" {
		hists = []string{ns.Stats.Histogram}
	}
	p := PlainOf(ns.Stats, hists)
	if p.Throughput == 0 && p.Completed == 0 && ns.Stats.Successes > 0 && ns.Stats.Elapsed > 0 {
		p.Throughput = float64(ns.Stats.Successes) / ns.Stats.Elapsed.D().Seconds()
		p.answered = true
	}
	return p
}
