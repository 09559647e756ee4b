// Package inside records what happens inside each target of a run and
// says why each of its measured stages ran as it did: a JVM's flight
// recording (internal/jfr), copied out of its container when it stops and
// cut by the stages' times, or a Go service's CPU profile of each stage
// (internal/goprof), read into the evidence internal/diagnosis weighs
// with the figures measured around the target. It keeps what was recorded
// in the run's store: the raw recording or profiles, and each stage's CPU
// samples folded (internal/flame), for flame graphs and for tools.
//
// The runner opens a Session per started target, lets it watch the attack
// (Observe), and collects it once the attack is over, before the target's
// container is removed (Collect).
package inside

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/goprof"
	"github.com/threadbench/threadbench/internal/jfr"
)

// OffReason is why nothing records inside a target when the spec turned
// recording off.
const OffReason = "recording was turned off (noProfile)"

// queued bounds the stage profiles waiting for the one being taken.
const queued = 64

// Session is what records inside one target during its attack.
type Session struct {
	target bench.InsideTarget // nil when the target cannot be recorded
	info   bench.InsideInfo
	off    bool
	hc     *http.Client

	mu       sync.Mutex
	windows  map[int]jfr.Window   // measured stages, by index, on the wall clock
	profiles map[int]stageProfile // a Go target's, by stage
	missed   map[int]string       // stages not profiled, and why
	inflight int                  // profiles being taken

	ctx    context.Context // the profiles'; cancelled by Collect
	cancel context.CancelFunc
	jobs   chan profileJob
	worker sync.WaitGroup
}

// stageProfile is one stage's CPU profile: as served, and parsed.
type stageProfile struct {
	raw []byte
	p   *goprof.Profile
}

// profileJob is a stage to profile until end.
type profileJob struct {
	stage int
	end   time.Time
}

// Open starts the session of a started target; off when the spec turned
// recording off for it. A Go target's profiles are taken as its stages
// begin (Observe), until Collect.
func Open(t bench.Target, off bool) *Session {
	s := &Session{off: off, windows: map[int]jfr.Window{}, profiles: map[int]stageProfile{}, missed: map[int]string{},
		hc: &http.Client{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	it, ok := t.(bench.InsideTarget)
	switch {
	case !ok:
		s.info.NoProfile = "the target cannot be recorded"
	case off:
		// its own code is still told apart in the figures around it
		s.info = bench.InsideInfo{NoProfile: OffReason, OwnPrefix: it.Inside().OwnPrefix}
	default:
		s.target, s.info = it, it.Inside()
	}
	if s.info.Source == bench.ProfilePprof {
		s.jobs = make(chan profileJob, queued)
		s.worker.Add(1)
		go s.profileStages()
	}
	return s
}

// Info says what records inside the target.
func (s *Session) Info() bench.InsideInfo { return s.info }

// Observe returns obs watched by the session: each measured stage's start
// and length are noted (the windows a recording is cut by), and a Go
// target's profile of the stage begins.
func (s *Session) Observe(obs bench.Observer) bench.Observer {
	stage := obs.Stage
	obs.Stage = func(st bench.StageResult) {
		if !st.Warmup {
			s.stageBegins(st, time.Now())
		}
		if stage != nil {
			stage(st)
		}
	}
	return obs
}

// stageBegins notes a measured stage's window and queues its profile.
func (s *Session) stageBegins(st bench.StageResult, now time.Time) {
	w := jfr.Window{Stage: st.Index, From: now, To: now.Add(st.Duration.D())}
	s.mu.Lock()
	s.windows[st.Index] = w
	s.mu.Unlock()
	if s.jobs == nil {
		return
	}
	select {
	case s.jobs <- profileJob{stage: st.Index, end: w.To}:
	default:
		s.miss(st.Index, "too many stages waiting to be profiled")
	}
}

// miss notes why a stage has no profile.
func (s *Session) miss(stage int, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.missed[stage] = why
}

// profileStages takes the queued stages' profiles one at a time (a Go
// process takes one CPU profile at a time), each for the whole seconds
// left of its stage, so that it ends inside it.
func (s *Session) profileStages() {
	defer s.worker.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case job := <-s.jobs:
			s.setInflight(1)
			s.profile(job)
			s.setInflight(-1)
		}
	}
}

// profile takes one stage's profile.
func (s *Session) profile(job profileJob) {
	left := time.Until(job.end).Truncate(time.Second)
	if left < time.Second {
		s.miss(job.stage, "less than a second of the stage was left to profile (the previous stage's profile ran into it)")
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, left+30*time.Second)
	defer cancel()
	p, raw, err := goprof.FetchURL(ctx, s.hc, s.info.ProfileURL, left)
	if err != nil {
		s.miss(job.stage, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profiles[job.stage] = stageProfile{raw: raw, p: p}
}

// stopProfiles waits for the profile under way (its stage is over, or
// about to be) for at most wait, then stops taking any.
func (s *Session) stopProfiles(wait time.Duration) {
	if s.jobs == nil {
		s.cancel()
		return
	}
	done := make(chan struct{})
	go func() {
		for len(s.jobs) > 0 || s.busy() {
			time.Sleep(50 * time.Millisecond)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
	}
	s.cancel()
	s.worker.Wait()
}

// setInflight counts a profile in or out.
func (s *Session) setInflight(delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight += delta
}

// busy says whether a stage's profile is queued or being taken.
func (s *Session) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight > 0
}

// Close ends the session without collecting anything: a cancelled run's.
func (s *Session) Close() {
	s.cancel()
	s.worker.Wait()
}
