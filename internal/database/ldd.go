package database

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// loadedAtRuntime are host libraries that glibc opens with dlopen rather
// than linking, so ldd never names them: the name-service modules, the
// resolver, and libgcc_s, which pthread_exit loads to unwind the stack.
// Each is copied if it sits next to libc.
var loadedAtRuntime = []string{"libnss_files.so.2", "libnss_dns.so.2", "libresolv.so.2", "libgcc_s.so.1"}

// hostLibraries returns the absolute host paths of the shared libraries
// the programs and shared objects under rootfs need from outside it, the
// dynamic loader included. A shared object under one of the optional
// directories that needs a library the host lacks is removed instead.
func hostLibraries(ctx context.Context, rootfs string, optional []string, log io.Writer) ([]string, error) {
	ldd, err := exec.LookPath("ldd")
	if err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "assembling a database image needs ldd on PATH: %v", err)
	}
	files, err := elfFiles(rootfs)
	if err != nil {
		return nil, err
	}
	libs := map[string]bool{}
	for _, f := range files {
		if err := addDeps(ctx, ldd, rootfs, f, isOptional(rootfs, f, optional), libs, log); err != nil {
			return nil, err
		}
	}
	for _, extra := range runtimeLoaded(libs) {
		libs[extra] = true
		if err := addDeps(ctx, ldd, rootfs, extra, false, libs, log); err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(libs)), nil
}

// isOptional reports whether file lies in one of the optional directories
// (host paths) under rootfs.
func isOptional(rootfs, file string, optional []string) bool {
	for _, dir := range optional {
		if within(filepath.Join(rootfs, dir), file) {
			return true
		}
	}
	return false
}

// addDeps adds to libs the libraries ldd says file needs from outside
// rootfs. An optional file whose libraries are not all found is removed.
func addDeps(ctx context.Context, ldd, rootfs, file string, optional bool, libs map[string]bool, log io.Writer) error {
	out, err := exec.CommandContext(ctx, ldd, file).Output()
	if err != nil {
		return fmt.Errorf("ldd %s: %w", file, withStderr(err))
	}
	paths, err := parseLDD(string(out))
	var missing *missingLibsError
	if errors.As(err, &missing) && optional {
		fmt.Fprintf(log, "database: leaving out %s (%v)\n", filepath.Base(file), err)
		return os.Remove(file)
	} else if err != nil {
		return fmt.Errorf("ldd %s: %w", file, err)
	}
	for _, p := range paths {
		if !within(rootfs, p) {
			libs[p] = true
		}
	}
	return nil
}

// runtimeLoaded returns the loadedAtRuntime libraries found in the
// directory of the libc among libs.
func runtimeLoaded(libs map[string]bool) []string {
	var found []string
	for lib := range libs {
		if filepath.Base(lib) != "libc.so.6" {
			continue
		}
		for _, name := range loadedAtRuntime {
			path := filepath.Join(filepath.Dir(lib), name)
			if _, err := os.Stat(path); err == nil && !libs[path] {
				found = append(found, path)
			}
		}
	}
	return found
}

// elfFiles returns the ELF executables and shared objects under dir.
func elfFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if ok, err := isELF(path); err != nil {
			return err
		} else if ok {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list binaries in %s: %w", dir, err)
	}
	return files, nil
}

// isELF reports whether the file at path starts with the ELF magic number.
func isELF(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return false, nil // shorter than a header: not ELF
	}
	return bytes.Equal(magic, []byte("\x7fELF")), nil
}

// within reports whether path lies inside dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// withStderr adds a failed command's stderr to its error.
func withStderr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %q", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// missingLibsError is what parseLDD returns when ldd could not resolve
// some libraries.
type missingLibsError struct {
	names []string
}

func (e *missingLibsError) Error() string {
	return "libraries not found: " + strings.Join(e.names, ", ")
}

// parseLDD reads ldd's output and returns the absolute paths of the
// libraries it resolved, the dynamic loader included. Virtual objects such
// as linux-vdso.so.1 have no file and are skipped. Libraries ldd could not
// find make it return a *missingLibsError, with the paths it did resolve.
// (internal/targets/jrebase's, which it does not export.)
func parseLDD(out string) ([]string, error) {
	var paths, missing []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, target, linked := strings.Cut(line, "=>")
		if !linked {
			target = name // "/lib64/ld-linux-x86-64.so.2 (0x...)" or "linux-vdso.so.1 (0x...)"
		}
		target = strings.TrimSpace(target)
		switch {
		case strings.HasPrefix(target, "not found"):
			missing = append(missing, strings.TrimSpace(name))
		case strings.HasPrefix(target, "/"):
			path, _, _ := strings.Cut(target, " (")
			paths = append(paths, strings.TrimSpace(path))
		}
	}
	if len(missing) > 0 {
		return paths, &missingLibsError{names: missing}
	}
	return paths, nil
}
