package targets

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// BuildBinaryImage makes an image of the static executable at path, FROM
// scratch as the Go target's, run as its entrypoint with args, on the
// runtime's engine, unless the engine has the image of the same binary
// and args already. The image is repository tagged with their hash; its
// reference is returned. A binary linked against the C library (built
// with cgo) would not run on scratch and is refused.
func (r *Runtime) BuildBinaryImage(ctx context.Context, repository, path string, args []string, log io.Writer) (string, error) {
	if err := checkStatic(path); err != nil {
		return "", err
	}
	name := filepath.Base(path)
	entrypoint, err := json.Marshal(append([]string{"/" + name}, args...))
	if err != nil {
		return "", err
	}
	dockerfile := fmt.Sprintf("FROM scratch\nCOPY %s /%s\nENTRYPOINT %s\n", name, name, entrypoint)
	sum, err := fileSum(path)
	if err != nil {
		return "", err
	}
	hash := sha256.Sum256(append(sum, dockerfile...))
	ref := repository + ":" + shortHash(hex.EncodeToString(hash[:]))
	if ok, err := r.imageExists(ctx, ref); ok || err != nil {
		return ref, err
	}
	dir, err := os.MkdirTemp("", "threadbench-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := copyFile(os.DirFS(filepath.Dir(path)), name, filepath.Join(dir, name)); err != nil {
		return "", err
	}
	if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return "", err
	}
	labels := map[string]string{labelInputs: hex.EncodeToString(hash[:]), labelBase: "scratch"}
	return ref, r.buildImage(ctx, ref, dir, nil, labels, log)
}

// checkStatic refuses an executable that needs a dynamic loader.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not a Linux executable to put in an image: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked (built with cgo) and cannot run FROM scratch: build it with CGO_ENABLED=0 (make build does)", path)
		}
	}
	return nil
}

// CopyImage makes sure ref is on the runtime's engine, loading it from
// the engine of from when it is not (docker save | docker load): there is
// no registry between them.
func (r *Runtime) CopyImage(ctx context.Context, from *Runtime, ref string, log io.Writer) error {
	if ok, err := r.imageExists(ctx, ref); ok || err != nil {
		return err
	}
	return r.loadImage(ctx, from, ref, log)
}
