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
	"syscall"
	"testing"
	"time"
)

// Count is how many JVM starts the host's tests make at once. Three on
// two CPUs: the tests that hold a slot spend most of it past the start,
// in stages bound by sleeps and timeouts, and with two slots the CPUs
// idled while the side-by-side part waited for slots (clean-clone run 23:
// both slots held from its 15th second to its last, 343 s).
const Count = 3

// poll is how often a test waiting for a slot tries them again.
const poll = 200 * time.Millisecond

// Dir is where the slots' lock files are: one per slot, shared by every
// test process of the host.
func Dir() string { return filepath.Join(os.TempDir(), "threadbench-jvm-slots") }

// Hold waits for one of the host's Count slots and holds it until t and
// its subtests have ended.
func Hold(t testing.TB) {
	t.Helper()
	f, err := Acquire(Dir(), Count)
	if err != nil {
		t.Fatalf("a JVM slot: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}

// Acquire waits until one of n slots in dir is free and takes it: the
// slot's lock file, locked; closing it frees the slot (as does the
// process's end, however it ends).
func Acquire(dir string, n int) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	for {
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
		time.Sleep(poll)
	}
}
