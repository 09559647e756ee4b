package jfr

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// MaxFileSize bounds a recording copied out of a container: Settings'
// MaxSize, and a little more for the chunk being written when it rotates.
const MaxFileSize = 320 << 20

// Copier is the part of the Docker API Copy uses; the engine client
// satisfies it.
type Copier interface {
	CopyFromContainer(ctx context.Context, containerID string, options client.CopyFromContainerOptions) (client.CopyFromContainerResult, error)
}

var _ Copier = (*client.Client)(nil)

// Copy copies the recording at src (Path) out of a container into the
// file dst, and returns its size. Call it once the container has stopped
// (the JVM writes the recording as it exits on `docker stop`'s SIGTERM)
// and before it is removed: the engine copies from a stopped container's
// file system as from a running one's, on a remote engine too. A
// container without the file gives ErrNoRecording; one larger than
// MaxFileSize is refused.
func Copy(ctx context.Context, cli Copier, containerID, src, dst string) (int64, error) {
	res, err := cli.CopyFromContainer(ctx, containerID, client.CopyFromContainerOptions{SourcePath: src})
	if cerrdefs.IsNotFound(err) {
		return 0, fmt.Errorf("%w (%s)", ErrNoRecording, src)
	}
	if err != nil {
		return 0, fmt.Errorf("copy %s from the container: %w", src, err)
	}
	defer res.Content.Close()
	return extract(tar.NewReader(res.Content), path.Base(src), dst)
}

// extract writes the archive's regular file named name to dst.
func extract(tr *tar.Reader, name, dst string) (int64, error) {
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%w (%s is not in the archive the engine sent)", ErrNoRecording, name)
		}
		if err != nil {
			return 0, fmt.Errorf("read the recording's archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg || path.Base(hdr.Name) != name {
			continue
		}
		if hdr.Size > MaxFileSize {
			return 0, fmt.Errorf("the recording is %d MiB, more than the %d MiB kept", hdr.Size>>20, MaxFileSize>>20)
		}
		if hdr.Size == 0 {
			return 0, fmt.Errorf("%w (%s is empty: the JVM did not finish writing it)", ErrNoRecording, name)
		}
		return writeFile(dst, io.LimitReader(tr, MaxFileSize))
	}
}

// writeFile writes r to a new file at dst, removing it on failure.
func writeFile(dst string, r io.Reader) (int64, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(dst)
		return 0, fmt.Errorf("write the recording to %s: %w", dst, err)
	}
	return n, nil
}
