package runner

import (
	"context"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/inside"
)

// collectTimeout bounds what follows a target's attack to read what
// recorded inside it: the JVM's exit with its recording, the copy, jfr's
// reading within its budget (about twenty seconds), the files kept.
const collectTimeout = 5 * time.Minute

// sessions are the inside sessions of the targets being run, by result.
type sessions struct {
	mu sync.Mutex
	m  map[*bench.TargetResult]*inside.Session
}

func (s *sessions) put(tr *bench.TargetResult, in *inside.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[*bench.TargetResult]*inside.Session{}
	}
	s.m[tr] = in
}

func (s *sessions) get(tr *bench.TargetResult) *inside.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[tr]
}

func (s *sessions) take(tr *bench.TargetResult) *inside.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.m[tr]
	delete(s.m, tr)
	return in
}

// openInside starts recording inside a started target, unless the spec
// turned it off (the target then runs as it would without threadbench).
func (r *Runner) openInside(spec bench.RunSpec, tr *bench.TargetResult, t bench.Target) {
	r.sessions.put(tr, inside.Open(t, spec.NoProfile))
}

// watchInside lets the target's inside session watch an attack's stages.
func (r *Runner) watchInside(tr *bench.TargetResult, obs bench.Observer) bench.Observer {
	if s := r.sessions.get(tr); s != nil {
		return s.Observe(obs)
	}
	return obs
}

// collectAndStop reads what recorded inside the target once its attack is
// over (a JVM is halted to write its recording, which is copied out before
// the container goes), diagnoses its stages into tr.Inside, keeps the
// files, and stops the target. A cancelled run only stops it.
func (r *Runner) collectAndStop(ctx context.Context, run *bench.Run, tr *bench.TargetResult, t bench.Target) {
	s := r.sessions.take(tr)
	if s != nil && ctx.Err() == nil {
		r.phase(run, tr, bench.PhaseStopping)
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), collectTimeout)
		tr.Inside = s.Collect(cctx, inside.Collection{RunID: run.ID, Result: tr, Series: r.evidenceSeries(cctx, run, tr), Store: r.cfg.Artifacts})
		cancel()
		r.halt(run, tr, t) // already stopping: the phase is told once
		return
	}
	if s != nil {
		s.Close()
	}
	r.stop(run, tr, t)
}

// evidenceSeries reads back the result's series the diagnosis reads.
func (r *Runner) evidenceSeries(ctx context.Context, run *bench.Run, tr *bench.TargetResult) []bench.Series {
	if r.cfg.Series == nil {
		return nil
	}
	series, err := r.cfg.Series.FindSeries(ctx, run.ID, tr.Key(), inside.EvidenceSeries)
	if err != nil {
		r.log.Warn("read series for the diagnosis", "run", run.ID, "target", tr.Key(), "err", err)
	}
	return series
}
