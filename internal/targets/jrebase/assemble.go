package jrebase

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// contents says what an image's runtime holds, for the image's labels.
type contents struct {
	version string   // JAVA_VERSION of the runtime, e.g. "25.0.3"
	vendor  string   // e.g. "Eclipse Adoptium"; may be empty
	modules []string // the runtime's modules
	source  string   // where a runtime not from the host's JDK came from; "" otherwise
}

// installer writes a Java runtime to javaHome and says what it holds.
type installer func(ctx context.Context, javaHome string, log io.Writer) (contents, error)

// assemble builds the root file system in a temporary directory, with the
// runtime install writes, and imports it into the engine as ref.
func assemble(ctx context.Context, cli Client, ref string, install installer, log io.Writer) error {
	if runtime.GOOS != "linux" {
		return bench.Errorf(bench.EUNAVAILABLE,
			"assembling the JRE base image needs a Linux host (this is %s); provide a base image instead", runtime.GOOS)
	}
	tmp, err := os.MkdirTemp("", "threadbench-jre-")
	if err != nil {
		return fmt.Errorf("make temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	rootfs := filepath.Join(tmp, "rootfs")
	c, err := buildRootfs(ctx, rootfs, install, log)
	if err != nil {
		return err
	}
	tarball := filepath.Join(tmp, "rootfs.tar")
	if err := writeTarFile(tarball, rootfs); err != nil {
		return fmt.Errorf("archive root file system: %w", err)
	}
	return importImage(ctx, cli, tarball, ref, imageChanges(c), log)
}

// buildRootfs lays out the image's files under rootfs: the runtime install
// writes, the host libraries it needs, and the few files of /etc a JVM looks
// for. It returns what the runtime holds.
func buildRootfs(ctx context.Context, rootfs string, install installer, log io.Writer) (contents, error) {
	javaHome := filepath.Join(rootfs, JavaHome)
	c, err := install(ctx, javaHome, log)
	if err != nil {
		return contents{}, err
	}
	libs, err := hostLibraries(ctx, javaHome, log)
	if err != nil {
		return contents{}, fmt.Errorf("collect shared libraries: %w", err)
	}
	fmt.Fprintf(log, "jre: copying %d host libraries\n", len(libs))
	for _, lib := range libs {
		if err := copyHostFile(rootfs, lib); err != nil {
			return contents{}, fmt.Errorf("copy shared library: %w", err)
		}
	}
	if err := writeSystemFiles(rootfs); err != nil {
		return contents{}, fmt.Errorf("write /etc and /tmp: %w", err)
	}
	return c, nil
}

// jlinked installs a runtime jlinked from the host JDK j, with the Modules
// it has.
func jlinked(j jdk.JDK) installer {
	return func(ctx context.Context, javaHome string, log io.Writer) (contents, error) {
		modules, err := availableModules(ctx, j, log)
		if err != nil {
			return contents{}, err
		}
		if err := jlink(ctx, j, modules, javaHome, log); err != nil {
			return contents{}, err
		}
		return contents{version: j.Version, vendor: j.Vendor, modules: modules}, nil
	}
}

// availableModules returns the Modules this JDK has, and logs the others.
func availableModules(ctx context.Context, j jdk.JDK, log io.Writer) ([]string, error) {
	out, err := exec.CommandContext(ctx, j.Tool("java"), "--list-modules").Output()
	if err != nil {
		return nil, fmt.Errorf("list modules: %s --list-modules: %w", j.Tool("java"), withStderr(err))
	}
	have := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), "@")
		have[name] = true
	}
	var modules []string
	for _, m := range Modules {
		if have[m] {
			modules = append(modules, m)
		} else {
			fmt.Fprintf(log, "jre: JDK %s has no module %s; leaving it out\n", j.Version, m)
		}
	}
	return modules, nil
}

// jlink writes a runtime with the given modules to output.
func jlink(ctx context.Context, j jdk.JDK, modules []string, output string, log io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		return fmt.Errorf("jlink: %w", err)
	}
	args := append([]string{"--add-modules", strings.Join(modules, ",")}, jlinkFlags...)
	args = append(args, "--output", output)
	fmt.Fprintf(log, "jre: jlink %s\n", strings.Join(args, " "))

	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, j.Tool("jlink"), args...)
	cmd.Stdout = io.MultiWriter(log, &out)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("jlink: %w: %q", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// withStderr adds a failed command's stderr to its error.
func withStderr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %q", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// etcFiles are the system files a JVM reads: the user database (for
// user.name and user.home) and the order of name services (files before DNS,
// so "localhost" resolves without a DNS server).
var etcFiles = map[string]string{
	"etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n",
	"etc/group":         "root:x:0:\nnogroup:x:65534:\n",
	"etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
}

// writeSystemFiles writes etcFiles, /root and a world-writable sticky /tmp
// (the JVM's java.io.tmpdir, where hsperfdata and Tomcat's work files go).
func writeSystemFiles(rootfs string) error {
	for name, content := range etcFiles {
		path := filepath.Join(rootfs, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		mode os.FileMode
	}{{"tmp", 0o777 | os.ModeSticky}, {"root", 0o700}} {
		path := filepath.Join(rootfs, d.name)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		// Chmod because MkdirAll's mode is cut by the umask and drops the sticky bit.
		if err := os.Chmod(path, d.mode); err != nil {
			return err
		}
	}
	return nil
}

// copyHostFile copies the host file at path to the same path under rootfs,
// following symlinks so the image holds the real file under the name the
// dynamic loader looks for.
func copyHostFile(rootfs, path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	src, err := os.Open(real)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	dst := filepath.Join(rootfs, path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", real, err)
	}
	return out.Close()
}

// sortedKeys returns the keys of set in order.
func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
