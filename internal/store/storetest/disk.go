//go:build linux

// Package storetest holds what the history's tests share: a small disk to
// fill.
package storetest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// MountSmallDisk mounts a tmpfs of size bytes on a temporary directory,
// unmounted when the test ends (after whatever it holds has been closed:
// cleanups run last registered first). It needs root: the integration
// tests run as root (make test), and a test that cannot mount fails
// saying so.
func MountSmallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("%s mounts a small tmpfs to fill, which needs root (uid %d): run the integration tests as root, as make test does", t.Name(), os.Geteuid())
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		t.Fatalf("mount a tmpfs of %d bytes on %s: %v", size, dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk writes a ballast file at path until the disk holding it has
// leave bytes free (or none, when the last write did not fit).
func FillDisk(t *testing.T, path string, leave uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		free := FreeBytes(t, filepath.Dir(path))
		if free <= leave {
			return
		}
		n := min(uint64(len(chunk)), free-leave)
		if _, err := f.Write(chunk[:n]); errors.Is(err, syscall.ENOSPC) {
			return
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// FreeBytes is what a process may still write on the disk holding dir.
func FreeBytes(t *testing.T, dir string) uint64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Bavail * uint64(st.Bsize)
}
