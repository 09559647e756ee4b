package bench

import (
	"fmt"
	"slices"
	"time"
)

// RunSummary is a run as a list shows it: who, when, how it ended, and each
// result's headline figures, never its stages, seconds or histograms. The
// history keeps it beside the run, so that listing runs reads no more.
type RunSummary struct {
	ID         string     `json:"id"`
	Name       string     `json:"name,omitempty"`
	Status     RunStatus  `json:"status"`
	Error      string     `json:"error,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Profile    string     `json:"profile,omitempty"` // its name, or its model and stage count
	Model      Model      `json:"model,omitempty"`
	Repeat     int        `json:"repeat,omitempty"`
	// Labels are the run's (its spec's): a list shows and filters by them.
	Labels  map[string]string `json:"labels,omitempty"`
	Targets []TargetSummary   `json:"targets"`
}

// TargetSummary is one result's headline: whole-attack throughput, p50,
// p99 and error rate, and the kinds of flag any of its stages carries.
type TargetSummary struct {
	Key        string       `json:"key"`
	Target     string       `json:"target"`
	Status     TargetStatus `json:"status"`
	Throughput float64      `json:"throughput,omitempty"`
	P50        float64      `json:"p50,omitempty"`
	P99        float64      `json:"p99,omitempty"`
	ErrorRate  float64      `json:"errorRate,omitempty"` // percent
	Flags      []string     `json:"flags,omitempty"`
}

// Summary returns the run as a list shows it.
func (r *Run) Summary() RunSummary {
	s := RunSummary{ID: r.ID, Name: r.Name, Status: r.Status, Error: r.Error, CreatedAt: r.CreatedAt,
		StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Model: r.Spec.Profile.Model, Repeat: r.Spec.Repeat, Labels: r.Spec.Labels,
		Profile: r.Spec.Profile.Name, Targets: []TargetSummary{}}
	if s.Profile == "" && len(r.Spec.Profile.Stages) > 0 {
		s.Profile = fmt.Sprintf("%s/%d stages", r.Spec.Profile.LoadModel().Name(), len(r.Spec.Profile.Stages))
	}
	if len(r.Targets) == 0 {
		for _, c := range r.Spec.RunCases() {
			s.Targets = append(s.Targets, TargetSummary{Key: TargetResult{Target: c.Target, Case: c.Name}.Key(), Target: c.Target, Status: TargetPending})
		}
	}
	for _, t := range r.Targets {
		s.Targets = append(s.Targets, t.summary())
	}
	return s
}

func (t TargetResult) summary() TargetSummary {
	s := TargetSummary{Key: t.Key(), Target: t.Target, Status: t.Status}
	if t.Total != nil {
		s.Throughput, s.P50, s.P99 = t.Total.Throughput, t.Total.Latency.P50, t.Total.Latency.P99
		if t.Total.Requests > 0 {
			s.ErrorRate = float64(t.Total.Requests-t.Total.Successes) * 100 / float64(t.Total.Requests)
		}
	}
	for _, st := range t.Stages {
		for _, f := range st.Flags {
			if !slices.Contains(s.Flags, f.Kind) {
				s.Flags = append(s.Flags, f.Kind)
			}
		}
	}
	return s
}
