package swarm

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// Generator is the generator's side of the protocol: `orchestrator
// generate` in a swarm task serves one attack with it, then exits.
type Generator struct {
	// Token is what the orchestrator must say to be served (the task's
	// environment carries it); a connection without it is closed.
	Token string
	// Attacker sends the attack: the load engines of the one process.
	Attacker bench.Attacker
	// Machine describes this host, for the orchestrator's records.
	Machine bench.Machine
	// Idle is how long it waits for the orchestrator before giving up
	// (DefaultIdle when 0): a generator whose orchestrator is gone must
	// not wait for ever.
	Idle time.Duration
	// Log receives what it does; nil discards it.
	Log io.Writer
}

// DefaultIdle is how long a generator waits for its orchestrator.
const DefaultIdle = 5 * time.Minute

// handshakeTimeout bounds a connection's hello.
const handshakeTimeout = 10 * time.Second

// outbox is how many messages may wait to be written: seconds, at one a
// second, never fill it unless the orchestrator stopped reading.
const outbox = 1024

// Serve accepts connections on ln until one from the orchestrator (with
// the token) has been served, ctx is cancelled, or Idle passes without
// one; it closes ln. It returns the attack's error, if it failed.
func (g *Generator) Serve(ctx context.Context, ln net.Listener) error {
	idle := g.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	timer := time.AfterFunc(idle, func() { ln.Close() })
	defer timer.Stop()
	defer ln.Close()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("no orchestrator came within %s: %w", idle, err)
		}
		w := newWire(conn)
		if err := g.greet(w); err != nil {
			g.logf("%s: %v", conn.RemoteAddr(), err)
			conn.Close()
			continue
		}
		timer.Stop()
		err = g.session(ctx, w)
		conn.Close()
		return err
	}
}

// greet checks the orchestrator's hello and answers it.
func (g *Generator) greet(w *wire) error {
	_ = w.conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
	defer w.conn.SetReadDeadline(time.Time{})
	m, err := w.expect(kindHello)
	switch {
	case err != nil:
		return err
	case m.Hello == nil || subtle.ConstantTimeCompare([]byte(m.Hello.Token), []byte(g.Token)) != 1:
		_ = w.send(message{Kind: kindError, Message: "wrong token"})
		return errors.New("wrong token")
	case m.Hello.Version != version:
		_ = w.send(message{Kind: kindError, Message: fmt.Sprintf("this generator speaks %s, not %s", version, m.Hello.Version)})
		return fmt.Errorf("protocol %s, want %s", m.Hello.Version, version)
	}
	return w.send(message{Kind: kindHello, Hello: &hello{Version: version, Machine: g.Machine}})
}

// session answers the clock exchanges, then sends the attack it is given
// and its result. The orchestrator's abort, or its connection closing,
// cancels the attack.
func (g *Generator) session(ctx context.Context, w *wire) error {
	for {
		m, err := w.read()
		if err != nil {
			return fmt.Errorf("the orchestrator left before the attack: %w", err)
		}
		switch m.Kind {
		case kindClock:
			if err := answerClock(w, m.Clock); err != nil {
				return err
			}
		case kindAttack:
			if m.Attack == nil {
				return errors.New("an attack message without its attack")
			}
			return g.attack(ctx, w, *m.Attack)
		case kindAbort:
			return fmt.Errorf("aborted before the attack: %s", m.Message)
		default:
			return fmt.Errorf("unexpected %q before the attack", m.Kind)
		}
	}
}

// answerClock stamps one clock exchange: when it came, when it left.
func answerClock(w *wire, c *clock) error {
	received := time.Now()
	if c == nil {
		return errors.New("a clock message without its times")
	}
	c.Received, c.Replied = received, time.Now()
	return w.send(message{Kind: kindClock, Clock: c})
}

// attack runs the attack and sends what it observes as it happens, then
// its result. It reads the orchestrator meanwhile: its begin (the common
// start, once every generator is prepared), an abort, or its leaving.
func (g *Generator) attack(ctx context.Context, w *wire, at attack) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan message, outbox)
	written := make(chan error, 1)
	go func() { written <- drain(w, out) }()
	begins := make(chan time.Time, 1)
	probes := make(chan clock, probeRounds)
	go g.listen(w, begins, probes, cancel)
	obs := bench.Observer{
		Stage:  func(s bench.StageResult) { out <- message{Kind: kindStage, Stage: &s} },
		Start:  func(t0 time.Time) { out <- message{Kind: kindT0, At: t0} },
		Second: func(b bench.Bucket) { out <- message{Kind: kindSecond, Second: &b} },
	}
	plan := at.Plan.plan()
	plan.Start = func(ctx context.Context) (time.Time, error) {
		out <- message{Kind: kindPrepared}
		for {
			select {
			case c := <-probes:
				// answered by the way armed will go: the orchestrator
				// sets its margins from how long that takes now
				c.Replied = time.Now()
				out <- message{Kind: kindClock, Clock: &c}
			case start := <-begins:
				if time.Until(start) > 0 {
					out <- message{Kind: kindArmed}
				}
				return start, nil // the engine refuses one already past
			case <-ctx.Done():
				return time.Time{}, ctx.Err()
			}
		}
	}
	g.logf("attack %s, share %s", at.BaseURL, plan.Share)
	res, err := g.Attacker.Run(ctx, at.BaseURL, plan, obs)
	result := message{Kind: kindResult, Result: res}
	if err != nil {
		result.Message = err.Error()
	}
	out <- result
	close(out)
	if werr := <-written; werr != nil {
		return werr
	}
	return err
}

// listen reads the orchestrator during the attack: its probes before the
// begin go to probes, stamped as they came; its begin goes to begins; an
// abort, or the connection closing, cancels the attack.
func (g *Generator) listen(w *wire, begins chan<- time.Time, probes chan<- clock, cancel context.CancelFunc) {
	defer cancel()
	for {
		m, err := w.read()
		switch {
		case err != nil:
			g.logf("the orchestrator's connection: %v; stopping", err)
			return
		case m.Kind == kindClock && m.Clock != nil:
			c := *m.Clock
			c.Received = time.Now()
			select {
			case probes <- c:
			default: // more than the orchestrator sends: left unanswered
			}
		case m.Kind == kindBegin:
			g.logf("begin at %s", m.At.Format(time.RFC3339Nano))
			select {
			case begins <- m.At:
			default: // a second begin: the first stands
			}
		default:
			g.logf("%s: %s; stopping", m.Kind, m.Message)
			return
		}
	}
}

// drain writes the outbox until it is closed.
func drain(w *wire, out <-chan message) error {
	var failed error
	for m := range out {
		if failed == nil {
			failed = w.send(m)
		}
	}
	return failed
}

func (g *Generator) logf(format string, args ...any) {
	if g.Log != nil {
		fmt.Fprintf(g.Log, "generator: "+format+"\n", args...)
	}
}
