package targets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// InputsHash returns the hex SHA-256 of a target's build inputs: every
// regular file under each of paths (files or directories, relative to root),
// by relative path and content, in sorted order, then each of extra (tool
// versions, base image refs). Modification times do not count, so a fresh
// checkout of the same sources hashes the same. A missing path is an error:
// building from a partial source tree would cache the wrong image.
func InputsHash(root string, paths []string, extra ...string) (string, error) {
	files, err := listFiles(root, paths)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, rel := range files {
		sum, err := fileSum(filepath.Join(root, rel))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "file %s %x\n", filepath.ToSlash(rel), sum)
	}
	for _, e := range extra {
		fmt.Fprintf(h, "extra %q\n", e)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// listFiles returns the regular files under paths, relative to root, sorted.
func listFiles(root string, paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			files = append(files, rel)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("hash build inputs: %w", err)
		}
	}
	sort.Strings(files)
	return files, nil
}

func fileSum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hash build inputs: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("hash build inputs: %s: %w", path, err)
	}
	return h.Sum(nil), nil
}

// shortHash is the image tag made from an inputs hash.
func shortHash(hash string) string { return hash[:12] }
