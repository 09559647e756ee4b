package runner

import "github.com/threadbench/threadbench/internal/bench"

// logResponses opens the target's response log, when the runner keeps
// one, and has the observer write to it. The returned function closes it;
// a log that fails is a warning, not a failed target: the measurements
// stand without it.
func (r *Runner) logResponses(run *bench.Run, tr *bench.TargetResult, obs *bench.Observer) (func(), error) {
	if r.cfg.Responses == nil {
		return func() {}, nil
	}
	w, err := r.cfg.Responses.Open(run.Spec, tr.Key())
	if err != nil {
		return nil, err
	}
	obs.Response = w.Write
	return func() {
		if err := w.Close(); err != nil {
			r.log.Warn("response log", "run", run.ID, "target", tr.Key(), "err", err)
		}
	}, nil
}
