package database

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
)

// Labels on a server's image, saying what it holds.
const (
	// ImageLabelKind is the server's kind: bench.DatabasePostgres...
	ImageLabelKind = "io.threadbench.database.kind"
	// ImageLabelVersion is the server's version, e.g. "15.18".
	ImageLabelVersion = "io.threadbench.database.version"
	// ImageLabelSource is where the server came from: the host's Debian
	// package, e.g. "debian:postgresql-15=15.18-0+deb12u1".
	ImageLabelSource = "io.threadbench.database.source"
)

// recipeVersion changes whenever the images' contents change for the same
// package, so that the refs stop matching images assembled the old way.
const recipeVersion = "2"

// recipe says how a server's image is assembled from the host.
type recipe struct {
	repository string // e.g. "threadbench/postgres"
	pkg        string // the Debian package that holds the server
	program    string // its server binary: missing, the package is not installed
	// copies are host files and directories copied as they are, with
	// the libraries their programs link.
	copies []string
	// optional are directories of copies whose shared objects (plug-ins)
	// are left out when a library they link is missing on the host.
	optional []string
	skip     []string // names under copies left out
	// generate writes the image's own files: path -> content.
	generate func() (map[string]string, error)
}

// debPackage is an installed Debian package.
type debPackage struct {
	name    string
	version string // Debian's, e.g. "1:10.11.19-0+deb12u1"
}

// upstream is the version without Debian's epoch and revision, e.g.
// "10.11.19": the server's.
func (p debPackage) upstream() string {
	v := p.version
	if _, after, ok := strings.Cut(v, ":"); ok {
		v = after
	}
	if i := strings.LastIndex(v, "-"); i > 0 {
		v = v[:i]
	}
	return v
}

// source is the image's ImageLabelSource.
func (p debPackage) source() string { return "debian:" + p.name + "=" + p.version }

// hostPackage returns the package that holds the server of r, or an
// EUNAVAILABLE error naming the package to install.
func hostPackage(ctx context.Context, title string, r recipe) (debPackage, error) {
	if runtime.GOOS != "linux" {
		return debPackage{}, bench.Errorf(bench.EUNAVAILABLE, "a %s server's image is assembled from a Debian package: it needs a Linux host (this is %s)", title, runtime.GOOS)
	}
	if _, err := os.Stat(r.program); err != nil {
		return debPackage{}, missingPackage(title, r, r.program+" is missing")
	}
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", r.pkg).Output()
	if err != nil {
		return debPackage{}, missingPackage(title, r, "dpkg-query -W "+r.pkg+": "+withStderr(err).Error())
	}
	status, version, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if status != "installed" || version == "" {
		return debPackage{}, missingPackage(title, r, fmt.Sprintf("dpkg says %q", strings.TrimSpace(string(out))))
	}
	return debPackage{name: r.pkg, version: version}, nil
}

// missingPackage is the error of a server whose package is not installed.
func missingPackage(title string, r recipe, why string) error {
	return bench.Errorf(bench.EUNAVAILABLE,
		"a %s server needs the Debian package %s on this host, which has not got it (%s): install it (apt-get install %s, or scripts/test-deps.sh)",
		title, r.pkg, why, r.pkg)
}

// imageRef is the image's reference: the server's version, then a hash of
// the package's version and f's recipe, e.g.
// "threadbench/postgres:15.18-1a2b3c4d".
func imageRef(f flavor, p debPackage, files map[string]string) string {
	r := f.image
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n%s\n", recipeVersion, p.source(), strings.Join(imageChanges(f, p), "\n"),
		strings.Join(r.copies, ","), strings.Join(r.optional, ","), strings.Join(r.skip, ","))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\n%d\n%s", name, len(files[name]), files[name])
	}
	return fmt.Sprintf("%s:%s-%s", r.repository, tagSafe(p.upstream()), hex.EncodeToString(h.Sum(nil))[:8])
}

var notTagChar = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// tagSafe turns a version into a valid tag part.
func tagSafe(version string) string {
	if version == "" {
		return "unknown"
	}
	return notTagChar.ReplaceAllString(version, "-")
}

// imageClient is the part of the Docker API the images need: the
// containers' part prepares one.
type imageClient interface {
	client.ContainerAPIClient
	ImageRemove(ctx context.Context, image string, options client.ImageRemoveOptions) (client.ImageRemoveResult, error)
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImageImport(ctx context.Context, source client.ImageImportSource, ref string, options client.ImageImportOptions) (client.ImageImportResult, error)
}

// ensureMu serialises the assembly of images within the process, so that
// two runs asking for the same one at once assemble it once.
var ensureMu sync.Mutex

// serverImage is a server's image and where its server came from.
type serverImage struct {
	info   bench.ImageInfo
	source string // ImageLabelSource
}

// ensureImage returns the image of f's server, assembling it from the
// host's package unless the engine has it already.
func ensureImage(ctx context.Context, cli imageClient, f flavor, history string, log io.Writer) (serverImage, error) {
	pkg, err := hostPackage(ctx, f.title, f.image)
	if err != nil {
		return serverImage{}, err
	}
	files, err := f.image.generate()
	if err != nil {
		return serverImage{}, err
	}
	img := serverImage{info: bench.ImageInfo{Ref: imageRef(f, pkg, files), Runtime: f.title + " " + pkg.upstream()}, source: pkg.source()}
	ensureMu.Lock()
	defer ensureMu.Unlock()
	if img.info.ID, err = imageID(ctx, cli, img.info.Ref); err != nil {
		return serverImage{}, err
	} else if img.info.ID != "" {
		img.info.Cached = true
		return img, nil
	}
	if err := assembleLogged(ctx, cli, img.info.Ref, f, pkg, files, history, log); err != nil {
		return serverImage{}, err
	}
	img.info.ID, err = imageID(ctx, cli, img.info.Ref)
	return img, err
}

// assembleLogged assembles the image ref, saying so in log.
func assembleLogged(ctx context.Context, cli imageClient, ref string, f flavor, pkg debPackage, files map[string]string, history string, log io.Writer) error {
	fmt.Fprintf(log, "database: assembling %s from %s\n", ref, pkg.source())
	start := time.Now()
	if err := assemble(ctx, cli, ref, f, pkg, files, history, log); err != nil {
		return fmt.Errorf("assemble the %s image %s: %w", f.title, ref, err)
	}
	fmt.Fprintf(log, "database: assembled %s in %s\n", ref, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// imageID is the ID of the image ref, "" when the engine has none.
func imageID(ctx context.Context, cli imageClient, ref string) (string, error) {
	img, err := cli.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return img.ID, nil
	case cerrdefs.IsNotFound(err):
		return "", nil
	default:
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
}

// imageChanges are the Dockerfile instructions applied to the imported
// root file system: the user, the time zone, the start script as the
// entrypoint, and labels saying what the image holds.
func imageChanges(f flavor, p debPackage) []string {
	return []string{
		"ENV PATH=/usr/local/bin:/usr/bin:/bin",
		"ENV TZ=UTC",
		"USER " + dbUser,
		"WORKDIR /tmp",
		fmt.Sprintf("ENTRYPOINT [%q]", startScript),
		fmt.Sprintf("LABEL %s=%q", ImageLabelKind, f.kind),
		fmt.Sprintf("LABEL %s=%q", ImageLabelVersion, p.upstream()),
		fmt.Sprintf("LABEL %s=%q", ImageLabelSource, p.source()),
	}
}
