package swarm_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/hdr"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/swarm"
)

// processFleet places generators as goroutines of the test, each serving
// the protocol on a loopback port with the real load engine, as a swarm
// task does on its node.
type processFleet struct {
	t *testing.T
	// slow delays generator i's attack before it prepares.
	slow map[int]time.Duration
	// sluggish delays each message generator i writes after its
	// prepared, as a machine loaded from then on would.
	sluggish map[int]time.Duration
}

func (f processFleet) Check(string) error { return nil }

func (f processFleet) Place(ctx context.Context, n int, token string) (swarm.Placed, error) {
	p := &placed{killed: make([]atomic.Bool, n)}
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		tracked := &trackingListener{Listener: ln, sluggish: f.sluggish[i]}
		gctx, cancel := context.WithCancel(context.Background())
		var attacker bench.Attacker = load.NewEngine()
		if d := f.slow[i]; d > 0 {
			attacker = slowAttacker{Attacker: attacker, delay: d}
		}
		g := &swarm.Generator{Token: token, Attacker: attacker, Machine: bench.Machine{Host: fmt.Sprintf("node-%d", i), CPUModel: "test CPU"}}
		p.members = append(p.members, swarm.Member{Node: fmt.Sprintf("n%d", i), Host: fmt.Sprintf("node-%d", i), Address: ln.Addr().String()})
		p.listeners, p.cancels = append(p.listeners, tracked), append(p.cancels, cancel)
		p.wg.Go(func() { _ = g.Serve(gctx, tracked) })
	}
	return p, nil
}

// placed are the test's generators.
type placed struct {
	members   []swarm.Member
	listeners []*trackingListener
	cancels   []context.CancelFunc
	killed    []atomic.Bool
	wg        sync.WaitGroup
	removed   atomic.Bool
}

func (p *placed) Members() []swarm.Member { return p.members }

func (p *placed) Why(_ context.Context, i int) string {
	if p.killed[i].Load() {
		return "killed by the test"
	}
	return ""
}

// kill ends generator i as a killed process would: its connection drops.
func (p *placed) kill(i int) {
	p.killed[i].Store(true)
	p.cancels[i]()
	p.listeners[i].closeConns()
}

func (p *placed) Remove(context.Context) error {
	for _, cancel := range p.cancels {
		cancel()
	}
	p.wg.Wait()
	p.removed.Store(true)
	return nil
}

// trackingListener keeps the connections it accepted, to drop them.
type trackingListener struct {
	net.Listener
	sluggish time.Duration
	mu       sync.Mutex
	conns    []net.Conn
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil && l.sluggish > 0 {
		c = &sluggishConn{Conn: c, delay: l.sluggish}
	}
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) closeConns() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// sluggishConn holds each message back for delay once it has written
// prepared. The generator writes one message per Write, from one
// goroutine at a time.
type sluggishConn struct {
	net.Conn
	delay time.Duration
	slow  atomic.Bool
}

func (c *sluggishConn) Write(p []byte) (int, error) {
	if c.slow.Load() {
		time.Sleep(c.delay)
	}
	if bytes.Contains(p, []byte(`"kind":"prepared"`)) {
		c.slow.Store(true)
	}
	return c.Conn.Write(p)
}

// slowAttacker takes its time before it starts preparing.
type slowAttacker struct {
	bench.Attacker
	delay time.Duration
}

func (s slowAttacker) Run(ctx context.Context, baseURL string, plan bench.Plan, obs bench.Observer) (*bench.AttackResult, error) {
	time.Sleep(s.delay)
	return s.Attacker.Run(ctx, baseURL, plan, obs)
}

// target is a server that counts requests and the most in flight at once.
type target struct {
	*httptest.Server
	requests atomic.Int64
	inFlight atomic.Int64
	peak     atomic.Int64
}

func newTarget(t *testing.T, sleep time.Duration) *target {
	tg := &target{}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tg.requests.Add(1)
		n := tg.inFlight.Add(1)
		defer tg.inFlight.Add(-1)
		for p := tg.peak.Load(); n > p && !tg.peak.CompareAndSwap(p, n); p = tg.peak.Load() {
		}
		time.Sleep(sleep)
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(tg.Close)
	return tg
}

// observed keeps what the attacker told the observer.
type observed struct {
	mu      sync.Mutex
	stages  []bench.StageResult
	seconds []bench.Bucket
	t0      time.Time
}

func (o *observed) observer() bench.Observer {
	return bench.Observer{
		Stage:  func(s bench.StageResult) { o.mu.Lock(); o.stages = append(o.stages, s); o.mu.Unlock() },
		Second: func(b bench.Bucket) { o.mu.Lock(); o.seconds = append(o.seconds, b); o.mu.Unlock() },
		Start:  func(t0 time.Time) { o.mu.Lock(); o.t0 = t0; o.mu.Unlock() },
	}
}

func light() bench.Workload {
	return bench.Workload{Requests: []bench.Request{{Endpoint: "light", Weight: 1}}, Timeout: bench.Duration(5 * time.Second)}
}

func sec(s float64) bench.Duration { return bench.Duration(s * float64(time.Second)) }

// Two generators send an open plan together: the merged requests are the
// plan's and the sum of the generators' own, its percentiles those of
// their histograms summed, each generator's share and clock recorded, and
// the observer told each second merged and each stage at the plan's rate.
func TestTwoGeneratorsOpen(t *testing.T) {
	tg := newTarget(t, time.Millisecond)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "a", Duration: sec(1), Rate: 200}, {Name: "b", Duration: sec(1), Rate: 100}}},
		Warmup:  bench.Warmup{Duration: sec(0.5), Rate: 40}}
	a := swarm.NewAttacker(swarm.Config{Fleet: processFleet{t: t}, Generators: 2})
	var obs observed
	begin := time.Now()
	res, err := a.Run(context.Background(), tg.URL, plan, obs.observer())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %s", time.Since(begin).Round(time.Millisecond))
	if got := res.Total.Requests; got != 300 || res.Warmup.Stats.Requests != 20 || tg.requests.Load() != 320 {
		t.Errorf("%d requests measured, %d in the warm-up, %d at the target; want 300, 20, 320", got, res.Warmup.Stats.Requests, tg.requests.Load())
	}
	if len(res.Generators) != 2 {
		t.Fatalf("%d generators recorded", len(res.Generators))
	}
	var own int64
	sum := hdr.New()
	for i, g := range res.Generators {
		if g.Share != (bench.Share{Index: i, Of: 2}) || g.Host != fmt.Sprintf("node-%d", i) || g.CPUModel != "test CPU" || g.Total == nil || g.RoundTripMs <= 0 {
			t.Errorf("generator %d: %+v", i, g)
			continue
		}
		if g.ClockOffsetMs > g.RoundTripMs || g.ClockOffsetMs < -g.RoundTripMs {
			t.Errorf("generator %d: clock offset %.3f ms on one host, beyond the round trip %.3f ms", i, g.ClockOffsetMs, g.RoundTripMs)
		}
		if g.Stages[0].Rate != 100 {
			t.Errorf("generator %d's first stage at %g req/s, want its share, 100", i, g.Stages[0].Rate)
		}
		own += g.Total.Requests
		h, err := hdr.Decode(g.Total.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		sum.Merge(h)
	}
	if own != res.Total.Requests {
		t.Errorf("merged %d requests, the generators' own %d", res.Total.Requests, own)
	}
	if want := hdr.Summarize(sum); res.Total.Latency.P50 != want.P50 || res.Total.Latency.P99 != want.P99 {
		t.Errorf("merged p50 %g p99 %g, the summed histograms' %g %g", res.Total.Latency.P50, res.Total.Latency.P99, want.P50, want.P99)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	var perSecond int64
	for _, b := range obs.seconds {
		perSecond += b.Stats.Requests
	}
	if len(obs.seconds) != 2 || perSecond != 300 {
		t.Errorf("observer told %d seconds of %d requests, want 2 of 300", len(obs.seconds), perSecond)
	}
	if len(obs.stages) != 3 || obs.stages[1].Rate != 200 || obs.stages[2].Rate != 100 {
		t.Errorf("observer told stages %+v, want the warm-up and both at the plan's rates", obs.stages)
	}
	if !obs.t0.Equal(res.T0) {
		t.Errorf("observer's t0 %s, the result's %s", obs.t0, res.T0)
	}
}

// Two generators share a closed plan's clients: the target holds the
// plan's clients, no more.
func TestTwoGeneratorsClosed(t *testing.T) {
	tg := newTarget(t, 10*time.Millisecond)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelClosed, Stages: []bench.Stage{{Duration: sec(1), Concurrency: 5}}},
		Warmup:  bench.Warmup{Disabled: true}}
	a := swarm.NewAttacker(swarm.Config{Fleet: processFleet{t: t}, Generators: 2})
	res, err := a.Run(context.Background(), tg.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.peak.Load(); got != 5 {
		t.Errorf("peak in flight %d, want the plan's 5 clients", got)
	}
	if c0, c1 := res.Generators[0].Stages[0].Concurrency, res.Generators[1].Stages[0].Concurrency; c0 != 3 || c1 != 2 || res.Stages[0].Concurrency != 5 {
		t.Errorf("clients %d + %d, merged %d; want 3 + 2 = 5", c0, c1, res.Stages[0].Concurrency)
	}
	if got, own := res.Total.Requests, res.Generators[0].Total.Requests+res.Generators[1].Total.Requests; got != own || got == 0 {
		t.Errorf("merged %d requests, the generators' own %d", got, own)
	}
}

// A generator not prepared in time fails the attack before any load: the
// target sees nothing, not even from the generator that was prepared.
func TestGeneratorLateFailsBeforeLoad(t *testing.T) {
	tg := newTarget(t, 0)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(1), Rate: 100}}},
		Warmup:  bench.Warmup{Disabled: true}}
	fleet := processFleet{t: t, slow: map[int]time.Duration{1: time.Second}}
	a := swarm.NewAttacker(swarm.Config{Fleet: fleet, Generators: 2, Prepare: 300 * time.Millisecond})
	res, err := a.Run(context.Background(), tg.URL, plan, bench.Observer{})
	if err == nil || !strings.Contains(err.Error(), "generator 2/2 on node-1 at ") || !strings.Contains(err.Error(), "could not start in time") || res != nil {
		t.Fatalf("result %v, error %v: want generator 2/2 late", res, err)
	}
	time.Sleep(time.Second) // the slow one has woken, and been told to stop
	if n := tg.requests.Load(); n != 0 {
		t.Errorf("the target saw %d requests", n)
	}
}

// A generator whose machine turns slow once it is prepared (each of its
// messages 150 ms late, past the 100 ms guard of an idle machine, as a
// generator on CPUs other work saturates) starts with the other: the
// probes found the way back slow, and the common start was set far
// enough ahead for its armed.
func TestSlowGeneratorWidensTheMargins(t *testing.T) {
	tg := newTarget(t, 0)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Duration: sec(1), Rate: 100}}},
		Warmup:  bench.Warmup{Disabled: true}}
	fleet := processFleet{t: t, sluggish: map[int]time.Duration{1: 150 * time.Millisecond}}
	a := swarm.NewAttacker(swarm.Config{Fleet: fleet, Generators: 2})
	res, err := a.Run(context.Background(), tg.URL, plan, bench.Observer{})
	if err != nil {
		t.Fatalf("the slow generator failed the attack: %v", err)
	}
	if got := res.Total.Requests; got != 100 || tg.requests.Load() != 100 {
		t.Errorf("%d requests measured, %d at the target; want 100 and 100", got, tg.requests.Load())
	}
}

// A generator that dies during a stage fails the attack, naming it; the
// other stops, and the stages measured until then are returned, every
// generator's part in them.
func TestGeneratorKilledMidStage(t *testing.T) {
	tg := newTarget(t, time.Millisecond)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "first", Duration: sec(1), Rate: 100}, {Name: "second", Duration: sec(5), Rate: 100}}},
		Warmup:  bench.Warmup{Disabled: true}}
	var p atomic.Pointer[placed]
	fleet := killingFleet{processFleet: processFleet{t: t}, placed: &p}
	a := swarm.NewAttacker(swarm.Config{Fleet: fleet, Generators: 2})
	obs := bench.Observer{Second: func(b bench.Bucket) {
		if b.Second == 1 {
			go p.Load().kill(1)
		}
	}}
	begin := time.Now()
	res, err := a.Run(context.Background(), tg.URL, plan, obs)
	took := time.Since(begin)
	if err == nil || !strings.Contains(err.Error(), "generator 2/2 on node-1 at ") || !strings.Contains(err.Error(), "failed during the attack") || !strings.Contains(err.Error(), "killed by the test") {
		t.Fatalf("error %v: want generator 2/2 named, and why", err)
	}
	if took > 4*time.Second {
		t.Errorf("took %s: the other generator did not stop", took)
	}
	if res == nil || len(res.Stages) == 0 || res.Stages[0].Name != "first" || res.Stages[0].Stats.Requests != 100 {
		t.Fatalf("stages so far %+v: want the first, with both generators' 100 requests", res)
	}
	if !p.Load().removed.Load() {
		t.Error("the generators were not removed")
	}
}

// killingFleet keeps what it placed, for the test to kill.
type killingFleet struct {
	processFleet
	placed *atomic.Pointer[placed]
}

func (f killingFleet) Place(ctx context.Context, n int, token string) (swarm.Placed, error) {
	p, err := f.processFleet.Place(ctx, n, token)
	if err == nil {
		f.placed.Store(p.(*placed))
	}
	return p, err
}

// A cancelled attack stops every generator and returns what they
// measured until then, with the context's error.
func TestCancelStopsTheGenerators(t *testing.T) {
	tg := newTarget(t, time.Millisecond)
	plan := bench.Plan{Workload: light(),
		Profile: bench.Profile{Model: bench.ModelOpen, Stages: []bench.Stage{{Name: "long", Duration: sec(30), Rate: 100}}},
		Warmup:  bench.Warmup{Disabled: true}}
	var p atomic.Pointer[placed]
	a := swarm.NewAttacker(swarm.Config{Fleet: killingFleet{processFleet: processFleet{t: t}, placed: &p}, Generators: 2})
	ctx, cancel := context.WithCancel(context.Background())
	obs := bench.Observer{Second: func(b bench.Bucket) {
		if b.Second == 0 {
			cancel()
		}
	}}
	begin := time.Now()
	res, err := a.Run(ctx, tg.URL, plan, obs)
	if err != context.Canceled {
		t.Errorf("error %v, want the context's", err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("took %s to stop", took)
	}
	if res == nil || len(res.Stages) != 1 || res.Stages[0].Stats.Requests < 100 || len(res.Generators) != 2 {
		t.Fatalf("result %+v: want the first second or more of the stage, from both generators", res)
	}
	if !p.Load().removed.Load() {
		t.Error("the generators were not removed")
	}
}
