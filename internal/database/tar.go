package database

// The tar writer and the image import are internal/targets/jrebase's, which
// does not export them; keep them alike.

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"
)

// writeTarFile archives the tree under rootfs into a tar file at path, with
// the modes it has and every file owned by root.
func writeTarFile(path, rootfs string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeTar(f, rootfs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTar writes the tree under rootfs to w as a tar stream.
func writeTar(w io.Writer, rootfs string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(rootfs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == rootfs {
			return err
		}
		rel, err := filepath.Rel(rootfs, path)
		if err != nil {
			return err
		}
		return writeTarEntry(tw, path, filepath.ToSlash(rel))
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// writeTarEntry writes the file, directory or symlink at path under name.
func writeTarEntry(tw *tar.Writer, path, name string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	var link string
	if fi.Mode()&os.ModeSymlink != 0 {
		if link, err = os.Readlink(path); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	if fi.IsDir() {
		hdr.Name += "/"
	}
	hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "root", "root"
	if "/"+name == templateDir {
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = dbUID, dbUID, "db", "db"
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// importImage imports the rootfs tarball as the image ref. Import, unlike a
// build FROM scratch, needs no builder and works the same on every engine
// since API 1.12.
func importImage(ctx context.Context, cli imageClient, tarball, ref string, changes []string, log io.Writer) error {
	f, err := os.Open(tarball)
	if err != nil {
		return fmt.Errorf("import image: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		fmt.Fprintf(log, "database: importing %s (%d MB root file system)\n", ref, fi.Size()>>20)
	}
	resp, err := cli.ImageImport(ctx,
		client.ImageImportSource{Source: f, SourceName: "-"}, ref,
		client.ImageImportOptions{Changes: changes, Message: "assembled by threadbench"})
	if err != nil {
		return fmt.Errorf("import image: %w", err)
	}
	defer resp.Close()
	if err := readProgress(resp, log); err != nil {
		return fmt.Errorf("import image: %w", err)
	}
	return nil
}

// readProgress copies the engine's JSON progress messages to log and returns
// the error the engine reports, if any.
func readProgress(r io.Reader, log io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var msg jsonstream.Message
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read engine progress: %w", err)
		}
		if msg.Error != nil {
			return fmt.Errorf("engine: %s", msg.Error.Message)
		}
		if text := strings.TrimSpace(msg.Status + msg.Stream); text != "" {
			fmt.Fprintf(log, "database: engine: %s\n", text)
		}
	}
}
