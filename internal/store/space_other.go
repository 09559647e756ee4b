//go:build !linux

package store

import "os"

// statSpace says nothing of the file system here: no space is checked and
// no reserve is kept.
func statSpace(string) (diskSpace, bool) { return diskSpace{}, false }

// allocate gives f n bytes of the disk by writing them.
func allocate(f *os.File, n int64) error { return writeZeros(f, n) }

// mountPoint is dir: where it is mounted is not looked for here.
func mountPoint(dir string) string { return dir }
