package database

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// assemble builds the server's root file system in a temporary directory,
// imports it into the engine and prepares it as ref (prepare), its
// containers labelled with history.
func assemble(ctx context.Context, cli imageClient, ref string, f flavor, pkg debPackage, files map[string]string, history string, log io.Writer) error {
	tmp, err := os.MkdirTemp("", "threadbench-database-")
	if err != nil {
		return fmt.Errorf("make temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	rootfs := filepath.Join(tmp, "rootfs")
	if err := buildRootfs(ctx, rootfs, f.image, files, log); err != nil {
		return err
	}
	tarball := filepath.Join(tmp, "rootfs.tar")
	if err := writeTarFile(tarball, rootfs); err != nil {
		return fmt.Errorf("archive root file system: %w", err)
	}
	base := rootfsRef(ref)
	if err := importImage(ctx, cli, tarball, base, imageChanges(f, pkg), log); err != nil {
		return err
	}
	defer untag(ctx, cli, base, log)
	return prepare(ctx, cli, base, ref, imageChanges(f, pkg), history, log)
}

// buildRootfs lays out the image's files under rootfs: the host's files the
// recipe copies, /bin/sh and /bin/cp (the start script copies the
// template), the host libraries their programs link, the
// few files of /etc a server looks for, and the recipe's own files.
func buildRootfs(ctx context.Context, rootfs string, r recipe, files map[string]string, log io.Writer) error {
	for _, path := range append(slices.Clone(r.copies), "/bin/sh", "/bin/cp") {
		if err := copyPath(rootfs, path, r.skip); err != nil {
			return fmt.Errorf("copy %s: %w", path, err)
		}
	}
	libs, err := hostLibraries(ctx, rootfs, r.optional, log)
	if err != nil {
		return fmt.Errorf("collect shared libraries: %w", err)
	}
	fmt.Fprintf(log, "database: copying %d host libraries\n", len(libs))
	for _, lib := range libs {
		if err := copyHostFile(rootfs, lib); err != nil {
			return fmt.Errorf("copy shared library: %w", err)
		}
	}
	if err := writeFiles(rootfs, systemFiles); err != nil {
		return fmt.Errorf("write /etc: %w", err)
	}
	if err := writeFiles(rootfs, files); err != nil {
		return err
	}
	return makeDirs(rootfs)
}

// copyPath copies the host file or directory at path to the same path
// under rootfs, leaving out what skip names.
func copyPath(rootfs, path string, skip []string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return copyHostFile(rootfs, path)
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case slices.Contains(skip, d.Name()) && d.IsDir():
			return filepath.SkipDir
		case slices.Contains(skip, d.Name()) || d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			return copySymlink(rootfs, p)
		}
		return copyHostFile(rootfs, p)
	})
}

// copySymlink makes the symlink at path under rootfs, pointing where it
// points on the host.
func copySymlink(rootfs, path string) error {
	target, err := os.Readlink(path)
	if err != nil {
		return err
	}
	dst := filepath.Join(rootfs, path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Symlink(target, dst)
}

// copyHostFile copies the host file at path to the same path under rootfs,
// following symlinks so the image holds the real file under the name
// programs look for. (internal/targets/jrebase's, which it does not
// export.)
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

// systemFiles are the files of /etc a server reads: the user database, with
// user db (uid 999), whom the servers run as, and the order of name
// services (files first, so that "localhost" resolves without DNS).
var systemFiles = map[string]string{
	"/etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\n" +
		"db:x:999:999:threadbench database:/var/lib/threadbench:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n",
	"/etc/group":         "root:x:0:\ndb:x:999:\nnogroup:x:65534:\n",
	"/etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
	"/etc/hosts":         "127.0.0.1 localhost\n::1 localhost\n",
}

// writeFiles writes files under rootfs: executable when they start with
// "#!", else readable by all.
func writeFiles(rootfs string, files map[string]string) error {
	for name, content := range files {
		path := filepath.Join(rootfs, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			return err
		}
		// Chmod because WriteFile's mode is cut by the umask.
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	return nil
}

// makeDirs makes the directories a server writes to: a world-writable
// sticky /tmp (sockets, pid files), the data directory's mount point and
// the template's directory (which the archive gives dbUser).
func makeDirs(rootfs string) error {
	for _, d := range []struct {
		name string
		mode os.FileMode
	}{{"tmp", 0o777 | os.ModeSticky}, {"root", 0o700}, {dataDir, 0o700}, {templateDir, 0o700}} {
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
