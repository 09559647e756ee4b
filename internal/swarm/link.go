package swarm

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// link is the orchestrator's connection to one generator.
type link struct {
	member Member
	share  bench.Share
	w      *wire
	// machine is what the generator said of its host.
	machine bench.Machine
	// offset is the generator's clock minus ours; rtt the round trip of
	// the exchange it was taken from.
	offset, rtt time.Duration
}

// dialRetry is how often a generator not listening yet is dialled again:
// its task runs before its process listens.
const dialRetry = 100 * time.Millisecond

// dial connects to a generator, trying again until it listens or ctx ends.
func dial(ctx context.Context, m Member) (net.Conn, error) {
	var d net.Dialer
	for {
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := d.DialContext(attempt, "tcp", m.Address)
		cancel()
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s at %s does not answer: %w", m.Node, m.Address, err)
		case <-time.After(dialRetry):
		}
	}
}

// open dials a generator, greets it with the token and measures its clock.
func open(ctx context.Context, m Member, share bench.Share, token string, exchanges int) (*link, error) {
	conn, err := dial(ctx, m)
	if err != nil {
		return nil, err
	}
	l := &link{member: m, share: share, w: newWire(conn)}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := l.greet(token); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s at %s: hello: %w", m.Node, m.Address, err)
	}
	if err := l.measureClock(exchanges); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s at %s: clock: %w", m.Node, m.Address, err)
	}
	return l, nil
}

func (l *link) greet(token string) error {
	if err := l.w.send(message{Kind: kindHello, Hello: &hello{Version: version, Token: token}}); err != nil {
		return err
	}
	m, err := l.w.expect(kindHello)
	if err != nil {
		return err
	}
	if m.Hello == nil || m.Hello.Version != version {
		return fmt.Errorf("the generator speaks %v, not %s", m.Hello, version)
	}
	l.machine = m.Hello.Machine
	return nil
}

// measureClock exchanges stamped messages with the generator and keeps
// the offset of the exchange with the shortest round trip, whose error is
// at most half of it (NTP's estimate).
func (l *link) measureClock(exchanges int) error {
	l.rtt = -1
	for range exchanges {
		sent := time.Now()
		if err := l.w.send(message{Kind: kindClock, Clock: &clock{Sent: sent}}); err != nil {
			return err
		}
		m, err := l.w.expect(kindClock)
		back := time.Now()
		if err != nil {
			return err
		}
		if m.Clock == nil {
			return fmt.Errorf("a clock answer without its times")
		}
		offset, rtt := clockOffset(sent, m.Clock.Received, m.Clock.Replied, back)
		if l.rtt < 0 || rtt < l.rtt {
			l.offset, l.rtt = offset, rtt
		}
	}
	return nil
}

// clockOffset is NTP's: the other clock's offset from ours, and the round
// trip less the time the other end held the message. sent and back are on
// our clock (with its monotonic reading), received and replied on theirs.
func clockOffset(sent, received, replied, back time.Time) (offset, rtt time.Duration) {
	rtt = back.Sub(sent) - replied.Sub(received)
	offset = (received.Sub(sent.Round(0)) + replied.Sub(back.Round(0))) / 2
	return offset, rtt
}

// send sends the generator its share of the plan.
func (l *link) send(baseURL string, plan bench.Plan) error {
	return l.w.send(message{Kind: kindAttack, Attack: &attack{BaseURL: baseURL, Plan: toWire(plan.ShareOf(l.share))}})
}

// probe sends a prepared generator a clock that left at sent, to time the
// way its armed will come back.
func (l *link) probe(sent time.Time) error {
	return l.w.send(message{Kind: kindClock, Clock: &clock{Sent: sent}})
}

// begin tells the generator to start at at, on our clock: its own clock's
// reading then is what it is given.
func (l *link) begin(at time.Time) error {
	return l.w.send(message{Kind: kindBegin, At: at.Add(l.offset).Round(0)})
}

// abort asks the generator to stop; it answers with what it measured.
func (l *link) abort(reason string) {
	_ = l.w.send(message{Kind: kindAbort, Message: reason})
}

// event is a message from one generator, or the reason none will come.
type event struct {
	from int
	msg  message
	err  error
}

// listen reads the generator's messages into events until its result,
// its connection fails, or the session is done.
func (l *link) listen(from int, events chan<- event, done <-chan struct{}) {
	for {
		m, err := l.w.read()
		select {
		case events <- event{from: from, msg: m, err: err}:
		case <-done:
			return
		}
		if err != nil || m.Kind == kindResult {
			return
		}
	}
}

// close closes the connection.
func (l *link) close() { l.w.conn.Close() }

// name names the generator for messages.
func (l *link) name() string {
	return bench.GeneratorEnvironment{Share: l.share, Address: l.member.Address, Machine: bench.Machine{Host: l.member.Host}}.Name()
}
