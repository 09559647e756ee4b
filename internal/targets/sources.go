package targets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/threadbench/threadbench/internal/bench"
)

// executables are the embedded files that must keep their execute bit
// (an embedded file has none): the Maven wrapper the Java build runs.
var executables = map[string]bool{"targets/java/mvnw": true}

// extractedMark is written last into an extracted tree: a tree without it
// was cut short (a killed process, a full disk) and is made again.
const extractedMark = ".threadbench-sources"

// ExtractSources writes the sources in fsys (the binary's embedded
// targets, at their repository paths) into a directory of their own under
// cacheDir, named for a hash of their content, and returns it. A tree
// extracted before from the same content is reused; a new binary with
// other sources gets a new tree. The Java build writes its target/ there,
// so the directory must be writable.
func ExtractSources(fsys fs.FS, cacheDir string) (string, error) {
	sum, err := sourcesHash(fsys)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cacheDir, "sources-"+sum[:12])
	if _, err := os.Stat(filepath.Join(dir, extractedMark)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("extract the built-in targets' sources: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "sources-tmp-")
	if err != nil {
		return "", fmt.Errorf("extract the built-in targets' sources: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(fsys, tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, extractedMark), []byte(sum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("extract the built-in targets' sources: %w", err)
	}
	os.RemoveAll(dir) // a tree cut short before
	if err := os.Rename(tmp, dir); err != nil && !isExtracted(dir) {
		return "", fmt.Errorf("extract the built-in targets' sources: %w", err)
	}
	return dir, nil
}

// isExtracted reports whether dir is a whole tree: another process may
// have renamed its own into place first.
func isExtracted(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, extractedMark))
	return err == nil
}

// sourcesHash is the hex SHA-256 of every file in fsys by path and content.
func sourcesHash(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read the built-in targets' sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyTree writes every file of fsys under dir.
func copyTree(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		return copyFile(fsys, p, dst)
	})
}

func copyFile(fsys fs.FS, p, dst string) error {
	src, err := fsys.Open(p)
	if err != nil {
		return err
	}
	defer src.Close()
	mode := os.FileMode(0o644)
	if executables[path.Clean(p)] {
		mode = 0o755
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("extract %s: %w", p, err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return fmt.Errorf("extract %s: %w", p, err)
	}
	return out.Close()
}

// sourcesCacheDir is where embedded sources are extracted: the user's
// cache directory, else the system's temporary one.
func sourcesCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "threadbench")
	}
	return filepath.Join(os.TempDir(), "threadbench-cache")
}

// FindSources returns the directory the built-in targets are built from:
// override (the configuration's repo, else $THREADBENCH_REPO) when set;
// else the checkout the working directory is in; else the sources
// embedded in the binary, extracted once to the cache.
func FindSources(start, override string, embedded fs.FS) (string, error) {
	root, err := FindRepoRoot(start, override)
	if err == nil || override != "" || embedded == nil {
		return root, err
	}
	dir, xerr := ExtractSources(embedded, sourcesCacheDir())
	if xerr != nil {
		return "", bench.Errorf(bench.EUNAVAILABLE, "%v; and the sources embedded in this binary could not be extracted: %v", err, xerr)
	}
	return dir, nil
}
