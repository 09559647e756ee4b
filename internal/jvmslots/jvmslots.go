// Package jvmslots bounds how many JVMs the integration tests start at once
// on this host, across test processes. A Spring Boot start takes seconds of
// a CPU: six at once, all on the host's last CPU, kept each past a minute
// to health, while two at a time start well within it. make test runs the
// tests that measure nothing in more than one go test process at a time,
// so the bound is a set of lock files (flock) every process shares, not a
// channel of one.
package jvmslots

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Count is how many JVM starts the host's tests make at once: three on two
// CPUs. The side-by-side part took 345-356 s with three (clean-clone runs
// 26 and 28) against 418 s with two (run 27), whose last minutes ran
// sleeping experiments two at a time on CPUs a third to a half idle. In
// its first minutes, CPUs saturated, a swarm generator once missed a fixed
// 100 ms arming guard with three (run 29); the swarm's margins now follow
// the generators' answers as measured at the start (internal/swarm,
// margins).
const Count = 3

// poll is how often a test waiting for a slot tries them again.
const poll = 200 * time.Millisecond

// Dir is where the slots' lock files are: one per slot, shared by every
// test process of the host.
func Dir() string { return filepath.Join(os.TempDir(), "threadbench-jvm-slots") }

// Hold waits for one of the host's Count slots and holds it until t and
// its subtests have ended. weight is about how long the test holds it (its
// JVMs and stages, in seconds, roughly): within a process the waiter of
// most weight is served first, and of equal weight the one that asked
// first, so that the longest start first and the short ones fill in after
// them, as a schedule of longest first does. (The first slot taken at
// random left the longest test, 100 s, to start last and run alone while
// the CPUs idled: clean-clone run 24.) Weight orders; it decides nothing.
func Hold(t testing.TB, weight int) {
	t.Helper()
	f, err := queue.acquire(Dir(), Count, weight)
	if err != nil {
		t.Fatalf("a JVM slot: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}

// queue is this process's waiters for a slot.
var queue waiters

// waiters orders a process's waiters: most weight first, then first come.
type waiters struct {
	mu   sync.Mutex
	next uint64
	wait []waiter
}

type waiter struct {
	weight int
	seq    uint64
}

// before reports whether a is served before b.
func (a waiter) before(b waiter) bool {
	return a.weight > b.weight || a.weight == b.weight && a.seq < b.seq
}

// acquire waits until it is this waiter's turn in the process and one of
// n slots in dir is free, and takes it.
func (q *waiters) acquire(dir string, n, weight int) (*os.File, error) {
	q.mu.Lock()
	me := waiter{weight: weight, seq: q.next}
	q.next++
	q.wait = append(q.wait, me)
	q.mu.Unlock()
	defer q.leave(me)
	for {
		// A poll first: parallel tests resume together, and the heavier
		// ones may ask a moment after a light one.
		time.Sleep(poll)
		if q.first() == me {
			f, err := TryAcquire(dir, n)
			if f != nil || err != nil {
				return f, err
			}
		}
	}
}

// first is the waiter served next.
func (q *waiters) first() waiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	best := q.wait[0]
	for _, w := range q.wait[1:] {
		if w.before(best) {
			best = w
		}
	}
	return best
}

func (q *waiters) leave(me waiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wait = slices.DeleteFunc(q.wait, func(w waiter) bool { return w == me })
}

// Acquire waits until one of n slots in dir is free and takes it: the
// slot's lock file, locked; closing it frees the slot (as does the
// process's end, however it ends).
func Acquire(dir string, n int) (*os.File, error) {
	for {
		if f, err := TryAcquire(dir, n); f != nil || err != nil {
			return f, err
		}
		time.Sleep(poll)
	}
}

// TryAcquire takes one of n slots in dir if one is free; nil if none is.
func TryAcquire(dir string, n int) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	for i := range n {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%d.lock", i)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			return f, nil
		}
		f.Close()
	}
	return nil, nil
}
