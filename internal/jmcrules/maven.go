package jmcrules

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Version is the version of JMC whose rules run.
const Version = "9.1.0"

// DefaultRepository is Maven Central, where JMC publishes its core libraries.
const DefaultRepository = "https://repo1.maven.org/maven2"

// RepositoryEnv names the environment variable that points New at a Maven
// repository mirror instead of DefaultRepository.
const RepositoryEnv = "THREADBENCH_MAVEN_REPO"

// Artifact is one jar in a Maven repository.
type Artifact struct {
	Group, Name, Version string
	// SHA1 is the jar's SHA-1, as Maven Central publishes it beside the
	// jar (<jar>.sha1). It is written here rather than read from the
	// repository so that a mirror cannot serve another jar with its own
	// checksum; the integration test checks it against Maven Central's.
	SHA1 string
}

// String returns the artifact's coordinates, e.g. "org.openjdk.jmc:common:9.1.0".
func (a Artifact) String() string { return a.Group + ":" + a.Name + ":" + a.Version }

// File returns the jar's file name, e.g. "common-9.1.0.jar".
func (a Artifact) File() string { return a.Name + "-" + a.Version + ".jar" }

// Path returns the jar's path in a Maven repository, e.g.
// "org/openjdk/jmc/common/9.1.0/common-9.1.0.jar".
func (a Artifact) Path() string {
	return strings.ReplaceAll(a.Group, ".", "/") + "/" + a.Name + "/" + a.Version + "/" + a.File()
}

// Artifacts are the jars the rules run with: flightrecorder.rules.jdk and
// its runtime dependencies, as their poms declare them (the parent pom,
// missioncontrol.core, adds only test dependencies). The list is fixed,
// rather than resolved, so that what runs is what was tested.
var Artifacts = []Artifact{
	// The rules themselves, and the framework they are written in.
	{"org.openjdk.jmc", "flightrecorder.rules.jdk", Version, "94556c4e29b60d8597527c4b2c9643c1c0976dc8"},
	{"org.openjdk.jmc", "flightrecorder.rules", Version, "82f7326f52b773114a09a13300f55e900b4e8882"},
	// The recording parser (JfrLoaderToolkit).
	{"org.openjdk.jmc", "flightrecorder", Version, "431b8b362d348ccb8381a155edfc85111bf00ea0"},
	// Quantities, items and I/O the others share.
	{"org.openjdk.jmc", "common", Version, "fae301ef8bed844af9ef29bd857402dfca8b611d"},
	// common's: the rules encode their texts with it even when asked for
	// no HTML.
	{"org.owasp.encoder", "encoder", "1.2.3", "35ae93be1524b161525da2c9a110019616f67548"},
	// common's: opens LZ4-compressed recordings. Analyze only gives JMC
	// recordings that are not compressed, but IOToolkit names the class,
	// so the JVM needs it to load IOToolkit at all.
	{"org.lz4", "lz4-java", "1.8.0", "4b986a99445e49ea5fbf5d149c4b63f6ed6c6780"},
}

// jarDir returns the directory of the cache that holds JMC's jars.
func jarDir(cacheDir string) string { return filepath.Join(cacheDir, "jmc", Version) }

// fetchAll makes sure every artifact's jar is in dir, downloading those
// that are missing or do not match their checksum, and returns their paths.
func fetchAll(ctx context.Context, client *http.Client, repo, dir string, artifacts []Artifact) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var jars []string
	for _, a := range artifacts {
		jar := filepath.Join(dir, a.File())
		// A jar in the cache is checked again: hashing 2.5 MB is quicker
		// than a JVM start, and it catches a cache someone wrote into.
		if err := checkFile(jar, a); err != nil {
			if err := fetch(ctx, client, repo, dir, a); err != nil {
				return nil, err
			}
		}
		jars = append(jars, jar)
	}
	return jars, nil
}

// checkFile says whether the file at path is a's jar.
func checkFile(path string, a Artifact) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha1.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	return checkSum(h.Sum(nil), a)
}

// checkSum says whether sum is a's jar's SHA-1.
func checkSum(sum []byte, a Artifact) error {
	if got := hex.EncodeToString(sum); got != a.SHA1 {
		return fmt.Errorf("the jar has SHA-1 %s, not the %s published for it", got, a.SHA1)
	}
	return nil
}

// fetch downloads a's jar from repo into dir. It writes a temporary file
// and renames it once its checksum is right, so that the cache never holds
// half a jar or another one, even when two processes download at once.
func fetch(ctx context.Context, client *http.Client, repo, dir string, a Artifact) error {
	url := strings.TrimSuffix(repo, "/") + "/" + a.Path()
	tmp, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	sum, err := download(ctx, client, url, tmp)
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return unavailable(ctx, a, url, err)
	}
	if err := checkSum(sum, a); err != nil {
		return bench.Errorf(bench.EUNAVAILABLE, "download %s from %s: %v", a, url, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, a.File()))
}

// unavailable is the error of a download that failed: an EUNAVAILABLE
// *bench.Error naming the URL and the variable that picks a mirror, or
// ctx's error if ctx ended.
func unavailable(ctx context.Context, a Artifact, url string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("download %s from %s: %w", a, url, ctx.Err())
	}
	return bench.Errorf(bench.EUNAVAILABLE,
		"cannot download %s from %s: %v (set %s to a Maven repository mirror)", a, url, err, RepositoryEnv)
}

// download writes what url serves to w and returns its SHA-1.
func download(ctx context.Context, client *http.Client, url string, w io.Writer) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		var urlErr *neturl.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err // the *url.Error would repeat the URL
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	h := sha1.New()
	if _, err := io.Copy(io.MultiWriter(w, h), resp.Body); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
