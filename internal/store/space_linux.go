package store

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// statSpace returns what the file system holding dir has room for.
func statSpace(dir string) (diskSpace, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return diskSpace{}, false
	}
	return diskSpace{Dir: dir, Free: st.Bavail * uint64(st.Bsize), Size: st.Blocks * uint64(st.Bsize)}, true
}

// mountPoint returns the highest directory above dir (or dir itself) on
// the same device: where its file system is mounted.
func mountPoint(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	dev, ok := device(dir)
	for ok {
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		if d, found := device(parent); !found || d != dev {
			break
		}
		dir = parent
	}
	return dir
}

// device returns the device a path lives on.
func device(path string) (uint64, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}

// allocate gives f n bytes of the disk, without writing them where the
// file system can.
func allocate(f *os.File, n int64) error {
	err := unix.Fallocate(int(f.Fd()), 0, 0, n)
	if err == unix.EOPNOTSUPP {
		return writeZeros(f, n)
	}
	return err
}
