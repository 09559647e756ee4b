package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// spool keeps an attack's reported seconds in order. Each keeps its
// histograms (a few kB at thousands of requests a second), so a long
// attack held them all in memory grew with its length: a 30-minute soak
// at 2,000 req/s took the daemon from 49 to 59 MiB. The spool keeps in
// memory only the seconds a response can still come back to (the
// horizon: the request timeout twice over, a wait for a connection and
// the request itself, and a margin) and writes the older ones to a file
// already unlinked, which nothing else can reach or remove and which goes
// with the spool. Where the file cannot be made or written (a full disk)
// the seconds stay in memory, as before: nothing is lost.
type spool struct {
	horizon int            // seconds kept in memory, the newest
	mem     []bench.Bucket // seconds [base, base+len(mem))
	base    int            // seconds written to the file
	file    *os.File       // nil until the first write, or after a failed one
	failed  bool           // a write failed: every second stays in memory
}

// spoolMargin is added to the horizon the timeout sets.
const spoolMargin = 10 * time.Second

// newSpool keeps the seconds of buckets of bucket each that requests of
// timeout may still come back to in memory.
func newSpool(timeout, bucket time.Duration) *spool {
	if bucket <= 0 {
		bucket = time.Second
	}
	return &spool{horizon: int((2*timeout+spoolMargin+bucket-1)/bucket) + 1}
}

// len is how many seconds were reported.
func (s *spool) len() int { return s.base + len(s.mem) }

// add keeps the next second, and writes the oldest in memory past the
// horizon to the file.
func (s *spool) add(b bench.Bucket) {
	s.mem = append(s.mem, b)
	if s.failed || len(s.mem) <= 2*s.horizon {
		return
	}
	// Write a horizon's worth at once: one write, and mem's array reused.
	n := len(s.mem) - s.horizon
	if err := s.write(s.mem[:n]); err != nil {
		s.failed = true
		return
	}
	s.base += n
	s.mem = append(s.mem[:0], s.mem[n:]...)
}

func (s *spool) write(buckets []bench.Bucket) error {
	if s.file == nil {
		f, err := os.CreateTemp("", "threadbench-seconds-*")
		if err != nil {
			return err
		}
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			return err
		}
		s.file = f
	}
	enc := json.NewEncoder(s.file)
	for _, b := range buckets {
		if err := enc.Encode(b); err != nil {
			return err
		}
	}
	return nil
}

// at returns reported second b to patch (a response that came back to
// it late), nil when it is not reported yet or was written out: a
// response comes back within the horizon, so the latter does not happen.
func (s *spool) at(b int) *bench.Bucket {
	if b < s.base || b >= s.len() {
		return nil
	}
	return &s.mem[b-s.base]
}

// reported says whether second b was reported.
func (s *spool) reported(b int) bool { return b < s.len() }

// all returns every second, those written out read back, and closes the
// file. An error leaves the seconds read back so far.
func (s *spool) all() ([]bench.Bucket, error) {
	out := make([]bench.Bucket, 0, s.len())
	if s.file != nil {
		defer s.file.Close()
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return append(out, s.mem...), fmt.Errorf("read back the attack's seconds: %w", err)
		}
		dec := json.NewDecoder(s.file)
		for range s.base {
			var b bench.Bucket
			if err := dec.Decode(&b); err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return append(out, s.mem...), fmt.Errorf("read back the attack's seconds: %w", err)
			}
			out = append(out, b)
		}
		s.file = nil
	}
	return append(out, s.mem...), nil
}
