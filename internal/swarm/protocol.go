package swarm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// The protocol between the orchestrator (the runner's side) and a
// generator: JSON objects, one per line, over one TCP connection the
// orchestrator opens to the generator's port. Each message has a kind and
// the one field that kind carries.
//
//	orchestrator                         generator
//	hello {token, version}          ->
//	                                <-   hello {version, machine}
//	clock {sent}            (x N)   ->
//	                                <-   clock {sent, received, replied}
//	attack {baseURL, plan}          ->
//	                                <-   prepared  (connections and workers made)
//	clock {sent}  (x probeRounds,   ->
//	  once all are prepared)        <-   clock {sent, received, replied}
//	begin {at}                      ->
//	                                <-   armed     (at is still ahead)
//	                                <-   stage, t0, second ... (as they happen)
//	abort {reason}  (at any time)   ->
//	                                <-   result {result, error}
//
// at is on the generator's own clock: the common start plus its offset.
// The clocks after prepared are answered by the way armed goes back (the
// attack's outbox): their round trips, whole, are how long the begin and
// its armed take on the generators' machines as loaded now, from which
// the orchestrator sets how far ahead the common start is (margins).
// The generator serves one attack, then exits; a connection that closes
// early cancels its attack.

// version names the protocol; both ends of one run come from one binary,
// but a generator image left from another version must not be spoken to.
const version = "threadbench-generator/2"

// Message kinds.
const (
	kindHello    = "hello"
	kindClock    = "clock"
	kindAttack   = "attack"
	kindBegin    = "begin"
	kindAbort    = "abort"
	kindPrepared = "prepared"
	kindArmed    = "armed"
	kindStage    = "stage"
	kindT0       = "t0"
	kindSecond   = "second"
	kindResult   = "result"
	kindError    = "error"
)

// message is one line of the protocol, either way.
type message struct {
	Kind    string              `json:"kind"`
	Hello   *hello              `json:"hello,omitempty"`
	Clock   *clock              `json:"clock,omitempty"`
	Attack  *attack             `json:"attack,omitempty"`
	Stage   *bench.StageResult  `json:"stage,omitempty"`
	At      time.Time           `json:"at,omitzero"` // begin's start, t0's t0
	Second  *bench.Bucket       `json:"second,omitempty"`
	Result  *bench.AttackResult `json:"result,omitempty"`
	Message string              `json:"message,omitempty"` // abort's reason, result's or error's error
}

// hello opens a session: the orchestrator's token, the generator's host.
type hello struct {
	Version string        `json:"version"`
	Token   string        `json:"token,omitempty"`
	Machine bench.Machine `json:"machine,omitzero"`
}

// clock is one exchange of the handshake that measures the generator's
// clock against the orchestrator's: Sent on the orchestrator's clock,
// Received and Replied on the generator's.
type clock struct {
	Sent     time.Time `json:"sent"`
	Received time.Time `json:"received,omitzero"`
	Replied  time.Time `json:"replied,omitzero"`
}

// attack is what the generator sends: its share of the plan, which starts
// when the orchestrator says (begin).
type attack struct {
	BaseURL string   `json:"baseURL"`
	Plan    wirePlan `json:"plan"`
}

// wirePlan is a bench.Plan as it travels: its callbacks stay behind.
type wirePlan struct {
	Workload bench.Workload `json:"workload"`
	Profile  bench.Profile  `json:"profile"`
	Warmup   bench.Warmup   `json:"warmup"`
	Share    bench.Share    `json:"share"`
}

func toWire(p bench.Plan) wirePlan {
	return wirePlan{Workload: p.Workload, Profile: p.Profile, Warmup: p.Warmup, Share: p.Share}
}

func (w wirePlan) plan() bench.Plan {
	return bench.Plan{Workload: w.Workload, Profile: w.Profile, Warmup: w.Warmup, Share: w.Share}
}

// maxLine bounds one message: a result carries every second's histogram.
const maxLine = 64 << 20

// wire reads and writes messages on a connection; writes may come from
// several goroutines.
type wire struct {
	conn net.Conn
	in   *bufio.Scanner
	mu   sync.Mutex
	enc  *json.Encoder
}

func newWire(conn net.Conn) *wire {
	in := bufio.NewScanner(conn)
	in.Buffer(make([]byte, 64<<10), maxLine)
	return &wire{conn: conn, in: in, enc: json.NewEncoder(conn)}
}

// send writes one message.
func (w *wire) send(m message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enc.Encode(m); err != nil {
		return fmt.Errorf("send %s: %w", m.Kind, err)
	}
	return nil
}

// read reads the next message.
func (w *wire) read() (message, error) {
	if !w.in.Scan() {
		if err := w.in.Err(); err != nil {
			return message{}, err
		}
		return message{}, fmt.Errorf("the connection closed")
	}
	var m message
	if err := json.Unmarshal(w.in.Bytes(), &m); err != nil {
		return message{}, fmt.Errorf("read a message: %w", err)
	}
	return m, nil
}

// expect reads the next message and checks its kind; an error message
// from the other end is its error.
func (w *wire) expect(kind string) (message, error) {
	m, err := w.read()
	switch {
	case err != nil:
		return m, err
	case m.Kind == kindError:
		return m, fmt.Errorf("%s", m.Message)
	case m.Kind != kind:
		return m, fmt.Errorf("got %q, want %q", m.Kind, kind)
	}
	return m, nil
}
