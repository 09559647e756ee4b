package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// databasePhase names the database server in progress events.
const databasePhase = "database"

// startDatabase starts the run's database server, if it has one, before
// any target (and before the downstream service), on the load generator's
// CPUs as a downstream service is: the targets' CPUs stay their own. It
// records what it started in run.Database; the caller stops it.
func (r *Runner) startDatabase(ctx context.Context, run *bench.Run) (bench.DatabaseServer, error) {
	d := run.Spec.Database
	if d == nil {
		return nil, nil
	}
	limits := run.Spec.DatabaseLimits()
	engine := run.Spec.EngineOf(bench.Case{})
	// On the local engine, beside the load generator: spec.Prepare refuses
	// a database for a run on a remote one.
	res := &bench.DatabaseResult{Kind: d.Kind, Status: bench.TargetRunning, Limits: limits, Pool: d.PoolSize(), CPUSet: run.Environment.LoadCPUSet}
	run.Database = res
	if r.cfg.Databases == nil {
		return nil, r.databaseFailed(run, bench.Errorf(bench.EUNAVAILABLE, "this runner starts no database servers"))
	}
	r.publish(bench.Event{Type: bench.EventTarget, RunID: run.ID, Target: databasePhase, TargetStatus: res.Status, Phase: bench.PhaseStarting})
	db, err := r.cfg.Databases.StartDatabase(ctx, bench.DatabaseRequest{
		RunID: run.ID, Engine: engine, Kind: d.Kind, Init: d.Init, Limits: limits, CPUSet: res.CPUSet,
	})
	if err != nil {
		return nil, r.databaseFailed(run, err)
	}
	res.Status, res.Address, res.Image, res.Settings, res.StartupMs = bench.TargetSucceeded, db.Conn().Address(), db.Image(), db.Settings(), millis(db.Startup())
	return db, nil
}

func (r *Runner) databaseFailed(run *bench.Run, err error) error {
	run.Database.Status, run.Database.Error = bench.TargetFailed, err.Error()
	return fmt.Errorf("database server %s: %w", run.Database.Kind, err)
}

// stopDatabase stops and removes the database server, after every target.
func (r *Runner) stopDatabase(run *bench.Run, db bench.DatabaseServer) {
	if db == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := db.Stop(ctx); err != nil {
		r.log.Error("stop database", "run", run.ID, "err", err)
	}
}

// databaseEnv is what a target is started with to reach the database.
func databaseEnv(spec bench.RunSpec, db bench.DatabaseServer) map[string]string {
	if db == nil || spec.Database == nil {
		return nil
	}
	return db.Conn().Env(spec.Database.PoolSize(), spec.Database.EnvNames())
}

// recordDatabase starts reading the database's figures during a target's
// attack, or returns nil without a database.
func (r *Runner) recordDatabase(ctx context.Context, db bench.DatabaseServer) bench.DatabaseRecording {
	if db == nil {
		return nil
	}
	return db.Record(ctx)
}

// keepDatabaseRecording files the database's figures with the target whose
// attack they cover, and its series under "<key>/database".
func (r *Runner) keepDatabaseRecording(run *bench.Run, tr *bench.TargetResult, rec bench.DatabaseRecording, t0 time.Time) {
	if rec == nil {
		return
	}
	if !t0.IsZero() {
		rec.SetT0(t0)
	}
	rr := rec.Stop(context.Background(), tr.Warmup, tr.Stages)
	tr.Database = rr.Stages
	if rr.Failures > 0 {
		r.log.Warn("database samples failed", "run", run.ID, "target", tr.Key(), "failures", rr.Failures, "err", rr.LastError)
	}
	if r.cfg.Series == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.cfg.Series.SaveSeries(ctx, run.ID, tr.Key()+"/"+databasePhase, rr.Series); err != nil {
		r.log.Error("store database series", "run", run.ID, "target", tr.Key(), "err", err)
	}
}

// checkDatabaseAlive fails a target's attack whose database server died
// under it: a stage measured against a dead database measures nothing.
func checkDatabaseAlive(ctx context.Context, db bench.DatabaseServer) error {
	if db == nil {
		return nil
	}
	st, err := db.State(ctx)
	if err != nil {
		return fmt.Errorf("the database server: %w", err)
	}
	if st.Running {
		return nil
	}
	why := fmt.Sprintf("exited with code %d", st.ExitCode)
	if st.OOMKilled {
		why = "was killed for want of memory (OOM)"
	}
	msg := "the database server " + why + " during the attack"
	if logs, err := db.Logs(ctx, 5); err == nil && logs != "" {
		msg += ": " + lastLine(logs)
	}
	return bench.Errorf(bench.EUNAVAILABLE, "%s", msg)
}

// services are what a run starts beside its targets and removes after them.
type services struct {
	downstream bench.Target
	database   bench.DatabaseServer
}

// startServices starts the run's database server, then its downstream
// service (which may use it), each if the spec has one. What started is
// returned with the first error, for stopServices to remove.
func (r *Runner) startServices(ctx context.Context, run *bench.Run) (services, error) {
	var svc services
	var err error
	if svc.database, err = r.startDatabase(ctx, run); err != nil {
		return svc, err
	}
	svc.downstream, err = r.startDownstream(ctx, run)
	return svc, err
}

// stopServices removes what startServices started, the database last.
func (r *Runner) stopServices(run *bench.Run, svc services) {
	r.stopDownstream(run, svc.downstream)
	r.stopDatabase(run, svc.database)
}

// lastLine is a log's last line that is not blank.
func lastLine(logs string) string {
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
