package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/threadbench/threadbench/internal/bench"
)

// The history and a disk that fills. SQLite keeps what is stored intact
// whatever write fails, so what is left to the store is to say so in words
// a user can act on, to keep room for the write that records how a run
// ended, and to refuse a recording it has no room for before writing any
// of it.

// DefaultReserveBytes is the room the history keeps on its disk for the
// write that finishes a run, in a file beside it (its path and
// "-reserve"). A run that meets a full disk gives it back and is still
// recorded as failed, with the disk's name, instead of staying "running";
// the file is made again once the disk has room for it and as much again.
// A run's state without its seconds (what the runner writes when the disk
// is full) takes tens of kilobytes of WAL.
const DefaultReserveBytes = 2 << 20

// ArtifactMarginBytes is the room a recording must leave on the history's
// disk beyond its own: what the rest of the run writes (seconds, series,
// its end) and the WAL's growth beside it. A recording takes its size
// twice while it is written, once in the WAL and once in the database
// when the WAL is checkpointed.
const ArtifactMarginBytes = 16 << 20

// lowSpaceBytes is the free space below which an I/O error of SQLite's is
// taken for a full disk: growing the WAL's index fails as an I/O error,
// not as SQLITE_FULL.
const lowSpaceBytes = 1 << 20

// diskSpace is what the file system holding a directory has room for.
type diskSpace struct {
	Dir  string // the directory asked about
	Free uint64 // bytes a process without privileges may still write
	Size uint64 // bytes in all
}

// String describes the file system for a message, by where it is
// mounted: "the file system at /var has 0 B free of 8.0 MiB".
func (s diskSpace) String() string {
	return fmt.Sprintf("the file system at %s has %s free of %s", mountPoint(s.Dir), sizeText(s.Free), sizeText(s.Size))
}

// sizeText writes a number of bytes for a person: whole bytes or KiB
// below a MiB, MiB or GiB to a tenth above.
func sizeText(n uint64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// space returns what the history's file system has room for; false where
// the platform does not say (no check is made there).
func (db *DB) space() (diskSpace, bool) {
	if db.path == MemoryPath {
		return diskSpace{}, false
	}
	return statSpace(filepath.Dir(db.path))
}

// reservePath is the file the reserve is kept in.
func (db *DB) reservePath() string { return db.path + "-reserve" }

// reserveBytes is the size of the reserve, 0 for none.
func (db *DB) reserveBytes() int64 {
	switch {
	case db.path == MemoryPath || db.ReserveBytes < 0:
		return 0
	case db.ReserveBytes == 0:
		return DefaultReserveBytes
	}
	return db.ReserveBytes
}

// holdReserve makes sure the reserve is on the disk: found from before, or
// made when the disk has room for it and as much again. It is called at
// Open and, while no reserve is held, before each write, so that a disk
// that was full gets its reserve back without a restart. A reserve that
// cannot be made is no error: writes go on without one.
func (db *DB) holdReserve() {
	n := db.reserveBytes()
	if db.reserveHeld || n == 0 {
		return
	}
	path := db.reservePath()
	if fi, err := os.Stat(path); err == nil && fi.Size() >= n {
		db.reserveHeld = true
		return
	}
	if s, ok := db.space(); !ok || s.Free < uint64(2*n) {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	err = allocate(f, n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return
	}
	db.reserveHeld = true
}

// releaseReserve gives the reserve's room back to the disk; false when
// there was none to give.
func (db *DB) releaseReserve() bool {
	if !db.reserveHeld {
		return false
	}
	db.reserveHeld = false
	return os.Remove(db.reservePath()) == nil
}

// diskFull reports whether a write failed for want of room on the
// history's disk.
func (db *DB) diskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return true
	case sqlite3.SQLITE_IOERR:
		s, ok := db.space()
		return ok && s.Free < lowSpaceBytes
	}
	return false
}

// noSpace is what a write that found the history's disk full returns: an
// EUNAVAILABLE error naming the history's file and its file system, with
// the failure underneath for the log.
func (db *DB) noSpace(cause error) error {
	where := ""
	if s, ok := db.space(); ok {
		where = ": " + s.String()
	}
	e := bench.Errorf(bench.EUNAVAILABLE, "no space left on device for the run history %s%s; free some space there and try again",
		db.path, where)
	return fmt.Errorf("%w (%v)", e, cause)
}

// roomForArtifact refuses a recording the history's disk has no room for
// (twice its size and ArtifactMarginBytes), before any of it is written,
// so that a recording never fills the disk halfway.
func (db *DB) roomForArtifact(a bench.Artifact) error {
	s, ok := db.space()
	if !ok {
		return nil
	}
	need := uint64(2*a.Bytes) + ArtifactMarginBytes
	if s.Free >= need {
		return nil
	}
	return bench.Errorf(bench.EUNAVAILABLE, "no room for it beside the run history %s: a file of %s needs %s there (twice its size while it is written, and %s to spare), and %s",
		db.path, sizeText(uint64(a.Bytes)), sizeText(need), sizeText(ArtifactMarginBytes), s)
}

// writeZeros writes n zero bytes at the start of f, where the file system
// cannot allocate without writing.
func writeZeros(f *os.File, n int64) error {
	zeros := make([]byte, min(n, 1<<16))
	for off := int64(0); off < n; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), n-off)], off); err != nil {
			return err
		}
	}
	return nil
}
