package swarm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Fleet places generators somewhere they run: a swarm service (Service),
// or processes of a test.
type Fleet interface {
	// Check refuses a target its generators cannot reach.
	Check(baseURL string) error
	// Place starts n generators that serve token, and returns once every
	// one runs, in order of their place (share i is Members()[i]).
	Place(ctx context.Context, n int, token string) (Placed, error)
}

// Placed are generators placed and running.
type Placed interface {
	Members() []Member
	// Why says how generator i ended, as its placer saw it ("" when it
	// cannot tell): a task's exit code, a node gone.
	Why(ctx context.Context, i int) string
	// Remove takes them all away, and waits until nothing of them is left.
	Remove(ctx context.Context) error
}

// Member is one placed generator: its node and where it listens.
type Member struct {
	Node    string // the node's ID in the swarm
	Host    string // the node's host name
	Address string // host:port the orchestrator dials
	// Machine is the node as its placer describes it; the generator adds
	// what it sees itself (its CPU model, its kernel).
	Machine bench.Machine
}

// Attacker sends each attack from generators a Fleet places, each a share
// of the plan starting at one common time, and merges what they measured
// exactly (package merge). It implements the same port as the one
// process's load engines, which the generators run.
type Attacker struct {
	cfg Config
}

var _ bench.Attacker = (*Attacker)(nil)

// Config is what an Attacker needs. Fleet and Generators are required.
type Config struct {
	Fleet      Fleet
	Generators int
	// Prepare bounds how long the generators may take to make their
	// connections and workers (DefaultPrepare when 0): a generator not
	// prepared by then fails the attack before any load.
	Prepare time.Duration
	// Log receives what went wrong removing the generators; nil discards it.
	Log *slog.Logger
}

// Defaults and bounds of an Attacker.
const (
	DefaultPrepare = time.Minute
	// clockExchanges are the handshake's clock exchanges per generator.
	clockExchanges = 8
	// placeTimeout bounds placing the generators and greeting them.
	placeTimeout = 2 * time.Minute
	// resultTimeout bounds waiting for the generators' results once the
	// attack has been stopped.
	resultTimeout = 30 * time.Second
	// removeTimeout bounds removing the generators.
	removeTimeout = time.Minute
)

// NewAttacker returns an Attacker of cfg.Generators generators placed by
// cfg.Fleet.
func NewAttacker(cfg Config) *Attacker {
	if cfg.Prepare <= 0 {
		cfg.Prepare = DefaultPrepare
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Attacker{cfg: cfg}
}

// Run places the generators, measures their clocks, hands each its share
// of the plan and, once every one is prepared, one common start (on its
// own clock); it merges what they observe as it comes (seconds as every
// generator has reported them, stages and t0 as the first reports them)
// and their results when they are done, and removes them, whatever
// happened. A generator not prepared in time, or not armed before the
// start, fails the attack before any load; one that fails during it fails
// the attack, naming it, and the others are stopped: what was measured
// until then is returned with the error, as is what was measured until ctx
// was cancelled.
func (a *Attacker) Run(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	if err := a.check(baseURL, plan, obs); err != nil {
		return nil, err
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	placing, cancel := context.WithTimeout(ctx, placeTimeout)
	defer cancel()
	placed, err := a.cfg.Fleet.Place(placing, a.cfg.Generators, token)
	if err != nil {
		return nil, fmt.Errorf("place %d load generators: %w", a.cfg.Generators, err)
	}
	defer a.remove(placed)
	links, err := a.open(placing, placed.Members(), token)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, l := range links {
			l.close()
		}
	}()
	s := newSession(ctx, plan, obs, links, placed)
	return s.run(baseURL, a.cfg.Prepare)
}

// check refuses what generators elsewhere cannot do: reach a target the
// fleet says they cannot, log every response here, end a warm-up together.
func (a *Attacker) check(baseURL string, plan bench.Plan, obs bench.Observer) error {
	if err := a.cfg.Fleet.Check(baseURL); err != nil {
		return err
	}
	if obs.Response != nil {
		return bench.Errorf(bench.EINVALID, "swarm generators do not send every response back: a results file needs the one-process generator")
	}
	if plan.Settled != nil {
		return bench.FieldErrorf("warmup.untilSteady", "swarm generators cannot end a warm-up together when the target settles; give the warm-up a duration and a rate")
	}
	return nil
}

// open dials every generator at once, greets it and measures its clock.
func (a *Attacker) open(ctx context.Context, members []Member, token string) ([]*link, error) {
	links := make([]*link, len(members))
	errs := make([]error, len(members))
	done := make(chan struct{})
	for i, m := range members {
		go func() {
			defer func() { done <- struct{}{} }()
			links[i], errs[i] = open(ctx, m, bench.Share{Index: i, Of: len(members)}, token, clockExchanges)
		}()
	}
	for range members {
		<-done
	}
	if err := errors.Join(errs...); err != nil {
		for _, l := range links {
			if l != nil {
				l.close()
			}
		}
		return nil, fmt.Errorf("greet the load generators: %w", err)
	}
	return links, nil
}

// remove removes the generators with a context of its own: a cancelled
// run must still leave nothing behind.
func (a *Attacker) remove(placed Placed) {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	if err := placed.Remove(ctx); err != nil {
		a.cfg.Log.Error("remove the load generators", "err", err)
	}
}

// newToken is a secret for one attack's generators.
func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("a token for the generators: %w", err)
	}
	return hex.EncodeToString(b), nil
}
