package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// hostLock makes sure only one run attacks at a time on a host, across
// processes (a CLI run and a daemon on one machine): an advisory flock on a
// well-known file. A second run waits its turn.
type hostLock struct {
	path string
	f    *os.File
}

// DefaultLockPath is the host-wide attack lock.
func DefaultLockPath() string { return filepath.Join(os.TempDir(), "threadbench-attack.lock") }

// acquire blocks until the lock is held or ctx is done. waiting is called
// once if the lock is busy, so the caller can say why nothing happens.
func (l *hostLock) acquire(ctx context.Context, waiting func()) error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return fmt.Errorf("open host lock %s: %w", l.path, err)
	}
	told := false
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			l.f = f
			return nil
		}
		if err != unix.EWOULDBLOCK {
			f.Close()
			return fmt.Errorf("lock %s: %w", l.path, err)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tryAcquire takes the lock if it is free and reports whether it did.
func (l *hostLock) tryAcquire() (bool, error) {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return false, fmt.Errorf("open host lock %s: %w", l.path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return false, nil
		}
		return false, fmt.Errorf("lock %s: %w", l.path, err)
	}
	l.f = f
	return true, nil
}

func (l *hostLock) release() {
	if l.f != nil {
		_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}
