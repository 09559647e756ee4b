package jdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Program is Java source that threadbench ships inside its binary and
// runs on a host JDK (the recording reader, the thread sampler): compiled
// once per source and JDK, into the user's cache.
type Program struct {
	// Name names the program's directory in the cache
	// (~/.cache/threadbench/<Name>/<version>-<hash>).
	Name string
	// Sources are its files, by name ("Reader.java"); Main is the class
	// whose compiled file says the compilation is whole.
	Sources map[string][]byte
	Main    string
	// Options are javac's, before the files ("--release", "17").
	Options []string
	// Classpath is what it compiles against (jars); Key says what they
	// are (their checksums), for the cache's name, since their paths may
	// change from call to call.
	Classpath []string
	Key       string
}

// compileMu keeps two compilations in one process from running at once;
// the rename in compileInto keeps two processes from seeing half of one.
var compileMu sync.Mutex

// Compile returns a directory that holds p compiled by j's javac,
// compiling it the first time, and what to call once done with it. The
// classes are kept in the user's cache directory; without one that can be
// written (no $HOME, a read-only one), each call compiles into a private
// temporary directory, removed by done: a directory of a name anyone can
// guess, in a directory anyone can write, could hold classes that are not
// p's.
func (p Program) Compile(ctx context.Context, j JDK) (string, func(), error) {
	compileMu.Lock()
	defer compileMu.Unlock()
	var errs []error
	if root, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(root, "threadbench", p.Name, p.cacheKey(j))
		if p.compiled(dir) {
			return dir, func() {}, nil
		}
		err := p.compileInto(ctx, j, dir)
		if err == nil || p.compiled(dir) {
			return dir, func() {}, nil
		}
		errs = append(errs, err)
	}
	if ctx.Err() == nil {
		dir, done, err := p.compilePrivate(ctx, j)
		if err == nil {
			return dir, done, nil
		}
		errs = append(errs, err)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("compile %s with %s: %w", p.Name, j, err)
	}
	return "", nil, fmt.Errorf("compile %s with %s: %w", p.Name, j, errors.Join(errs...))
}

// compilePrivate compiles p into a new temporary directory of its own;
// done removes it.
func (p Program) compilePrivate(ctx context.Context, j JDK) (dir string, done func(), err error) {
	tmp, err := os.MkdirTemp("", "threadbench-"+p.Name+"-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	dir = filepath.Join(tmp, "classes")
	if err := p.compileInto(ctx, j, dir); err != nil {
		done()
		return "", nil, err
	}
	return dir, done, nil
}

// compileInto compiles p into dir, which must not exist yet: into a
// temporary directory beside it, renamed once whole.
func (p Program) compileInto(ctx context.Context, j JDK, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".compiling-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := append(slices.Clone(p.Options), "-nowarn", "-encoding", "UTF-8", "-d", tmp)
	if len(p.Classpath) > 0 {
		args = append(args, "-cp", strings.Join(p.Classpath, string(os.PathListSeparator)))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Sources)) {
		src := filepath.Join(tmp, name)
		if err := os.WriteFile(src, p.Sources[name], 0o644); err != nil {
			return err
		}
		args = append(args, src)
	}
	javac := j.Tool("javac")
	out, err := Command(ctx, javac, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", javac, err, Tail(string(out), 5))
	}
	for name := range p.Sources {
		os.Remove(filepath.Join(tmp, name))
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it 0700
		return err
	}
	return os.Rename(tmp, dir)
}

// compiled reports whether dir holds p compiled.
func (p Program) compiled(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, p.Main+".class"))
	return err == nil
}

// cacheKey names p compiled by j: the JDK's version (readable in a
// listing) and a hash of the sources, the options, Key and the JDK's home
// and version, so that a changed source or another JDK compiles anew.
func (p Program) cacheKey(j JDK) string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(p.Sources)) {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(p.Sources[name]))
		h.Write(p.Sources[name])
	}
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%s", strings.Join(p.Options, " "), p.Key, j.Home, j.Version)
	return j.Version + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// Tail returns the last n non-blank lines of text, joined with " / ": what
// a tool said last, for an error.
func Tail(text string, n int) string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines[max(len(lines)-n, 0):], " / ")
}
