package jmcrules_test

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/jmcrules"
)

// TestMain keeps whatever the tests download or compile in a cache of
// their own, not in the user's.
func TestMain(m *testing.M) {
	os.Exit(runInCache(m))
}

// runInCache runs the tests with XDG_CACHE_HOME (os.UserCacheDir) a new
// temporary directory.
func runInCache(m *testing.M) int {
	cache, err := os.MkdirTemp("", "jmcrules-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(cache)
	os.Setenv("XDG_CACHE_HOME", cache)
	return m.Run()
}

// output is what the program writes for three rules: a warning with a
// score, a rule not applicable to the recording, and one that failed.
const output = `{"loadSeconds":0.852,"rulesSeconds":0.465,"rules":[` +
	`{"id":"JavaBlocking","name":"Java Blocking","topic":"lock_instances","severity":"WARNING","score":99.5,` +
	`"summary":"Threads in the application were blocked on locks for a total of 1 min 9 s.",` +
	`"explanation":"The most blocking monitor class was 'java.lang.Object'.\nSee below."},` +
	`{"id":"PasswordsInArguments","name":"Passwords in Java Arguments","topic":"jvm_information","severity":"NA",` +
	`"summary":"The rule requires events."},` +
	`{"id":"Slow","name":"Slow","topic":"x","error":"not done within the time the rules were given"}]}`

func TestDecode(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		res, err := jmcrules.Decode([]byte(output))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(res.Rules), 3; got != want {
			t.Fatalf("%d rules, want %d", got, want)
		}
		if got, want := res.LoadSeconds, 0.852; got != want {
			t.Errorf("LoadSeconds = %v, want %v", got, want)
		}
		blocking := res.Rules[0]
		if blocking.ID != "JavaBlocking" || blocking.Severity != jmcrules.SeverityWarning || blocking.Score == nil || *blocking.Score != 99.5 {
			t.Errorf("first rule = %+v, want JavaBlocking, WARNING, 99.5", blocking)
		}
		if got, want := blocking.Explanation, "The most blocking monitor class was 'java.lang.Object'.\nSee below."; got != want {
			t.Errorf("Explanation = %q, want %q", got, want)
		}
		if na := res.Rules[1]; na.Severity != jmcrules.SeverityNA || na.Score != nil {
			t.Errorf("second rule = %+v, want NA without a score", na)
		}
		if slow := res.Rules[2]; slow.Error == "" || slow.Severity != "" {
			t.Errorf("third rule = %+v, want an error and no severity", slow)
		}
	})
	for _, tt := range []struct {
		name, output, want string
	}{
		// The JVM died while writing.
		{"ErrCutShort", output[:len(output)-10], "not their results"},
		// A class path without the rules registers none.
		{"ErrNoRules", `{"rules":[]}`, "no results"},
		{"ErrNoID", `{"rules":[{"severity":"OK"}]}`, "without a rule id"},
		// A JMC whose severities changed is not the one this was written for.
		{"ErrUnknownSeverity", `{"rules":[{"id":"A","severity":"SEVERE"}]}`, `severity "SEVERE"`},
		{"ErrNoSeverity", `{"rules":[{"id":"A"}]}`, `severity ""`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jmcrules.Decode([]byte(tt.output))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestResult_Warnings(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	res := &jmcrules.Result{Rules: []jmcrules.Rule{
		{ID: "B", Severity: jmcrules.SeverityWarning, Score: score(80)},
		{ID: "Info", Severity: jmcrules.SeverityInfo, Score: score(99)},
		{ID: "NoScore", Severity: jmcrules.SeverityWarning},
		{ID: "A", Severity: jmcrules.SeverityWarning, Score: score(80)},
		{ID: "Top", Severity: jmcrules.SeverityWarning, Score: score(100)},
		{ID: "Failed", Error: "boom"},
	}}
	var ids []string
	for _, r := range res.Warnings() {
		ids = append(ids, r.ID)
	}
	// Highest score first, ties by ID, no score last; INFO is no warning.
	if want := []string{"Top", "A", "B", "NoScore"}; !slices.Equal(ids, want) {
		t.Errorf("Warnings() = %v, want %v", ids, want)
	}
}

func TestArtifacts(t *testing.T) {
	hex40 := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, a := range jmcrules.Artifacts {
		if !hex40.MatchString(a.SHA1) {
			t.Errorf("%s: SHA1 %q is not 40 hex digits", a, a.SHA1)
		}
	}
	common := jmcrules.Artifact{Group: "org.openjdk.jmc", Name: "common", Version: "9.1.0"}
	if got, want := common.Path(), "org/openjdk/jmc/common/9.1.0/common-9.1.0.jar"; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if got, want := common.String(), "org.openjdk.jmc:common:9.1.0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// fakeJar is a jar the fake repository serves, and its artifact.
var (
	fakeJar      = []byte("PK\x03\x04 not really a jar")
	fakeArtifact = jmcrules.Artifact{Group: "org.example", Name: "fake", Version: "1.0", SHA1: sha1Hex(fakeJar)}
)

func sha1Hex(data []byte) string {
	sum := sha1.Sum(data)
	return hex.EncodeToString(sum[:])
}

// repository serves body at every path and counts the requests.
func repository(t *testing.T, status int, body []byte) (*httptest.Server, *atomic.Int32) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func TestFetchAll(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		srv, requests := repository(t, http.StatusOK, fakeJar)
		dir := t.TempDir()
		for range 2 {
			jars, err := jmcrules.FetchAll(t.Context(), srv.Client(), srv.URL, dir, []jmcrules.Artifact{fakeArtifact})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(jars[0]); err != nil || string(got) != string(fakeJar) {
				t.Fatalf("jar holds %q (%v), want what was served", got, err)
			}
		}
		// The second call found the jar in the cache.
		if got := requests.Load(); got != 1 {
			t.Errorf("%d requests, want 1", got)
		}
	})
	t.Run("RepairsCache", func(t *testing.T) {
		srv, _ := repository(t, http.StatusOK, fakeJar)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, fakeArtifact.File()), []byte("tampered"), 0o644)
		jars, err := jmcrules.FetchAll(t.Context(), srv.Client(), srv.URL, dir, []jmcrules.Artifact{fakeArtifact})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(jars[0]); string(got) != string(fakeJar) {
			t.Errorf("jar holds %q, want the download", got)
		}
	})
	t.Run("ErrBadChecksum", func(t *testing.T) {
		srv, _ := repository(t, http.StatusOK, []byte("PK\x03\x04 another jar"))
		dir := t.TempDir()
		_, err := jmcrules.FetchAll(t.Context(), srv.Client(), srv.URL, dir, []jmcrules.Artifact{fakeArtifact})
		wantUnavailable(t, err, "SHA-1", fakeArtifact.SHA1)
		// Neither the jar nor the download is left behind.
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the cache holds %v, want nothing", entries)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		srv, _ := repository(t, http.StatusNotFound, nil)
		_, err := jmcrules.FetchAll(t.Context(), srv.Client(), srv.URL, t.TempDir(), []jmcrules.Artifact{fakeArtifact})
		wantUnavailable(t, err, srv.URL+"/org/example/fake/1.0/fake-1.0.jar", "404")
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		srv, _ := repository(t, http.StatusOK, fakeJar)
		srv.Close()
		_, err := jmcrules.FetchAll(t.Context(), srv.Client(), srv.URL, t.TempDir(), []jmcrules.Artifact{fakeArtifact})
		wantUnavailable(t, err, srv.URL+"/org/example/fake/1.0/fake-1.0.jar", jmcrules.RepositoryEnv)
	})
}

// wantUnavailable fails t unless err is an EUNAVAILABLE *bench.Error
// whose message holds every one of wants.
func wantUnavailable(t *testing.T, err error, wants ...string) {
	t.Helper()
	if code := bench.ErrorCode(err); code != bench.EUNAVAILABLE {
		t.Fatalf("err = %v (code %q), want %q", err, code, bench.EUNAVAILABLE)
	}
	for _, want := range wants {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want one saying %q", err, want)
		}
	}
}

func TestAnalyzer_Analyze(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The recording is checked before anything is downloaded or a JVM
	// started: an Analyzer without a JDK will do.
	for _, tt := range []struct {
		name, path, code, want string
	}{
		{"ErrMissing", filepath.Join(dir, "missing.jfr"), bench.ENOTFOUND, "no recording at"},
		{"ErrNotARecording", write("notes.jfr", "these are notes"), bench.EINVALID, "not a flight recording"},
		{"ErrEmpty", write("empty.jfr", ""), bench.EINVALID, "not a flight recording"},
		{"ErrDirectory", dir, bench.EINVALID, "not a flight recording"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := (&jmcrules.Analyzer{}).Analyze(t.Context(), tt.path)
			if code := bench.ErrorCode(err); code != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v (code %q), want a %q saying %q", err, code, tt.code, tt.want)
			}
		})
	}
	t.Run("ErrOldJDK", func(t *testing.T) {
		old := jdk.JDK{Home: filepath.Join(dir, "jdk-11"), Version: "11.0.2", Major: 11}
		_, err := (&jmcrules.Analyzer{JDK: old}).Analyze(t.Context(), write("old.jfr", "FLR\x00\x00\x02"))
		if code := bench.ErrorCode(err); code != bench.EUNAVAILABLE || !strings.Contains(err.Error(), "JDK 17 or newer") {
			t.Errorf("err = %v (code %q), want an %q asking for a JDK 17", err, code, bench.EUNAVAILABLE)
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		srv, _ := repository(t, http.StatusOK, nil)
		srv.Close()
		// No JDK is run: the jars are downloaded before anything is compiled.
		noJDK := jdk.JDK{Home: filepath.Join(dir, "no-jdk"), Version: "25", Major: 25}
		a := &jmcrules.Analyzer{JDK: noJDK, Repository: srv.URL, CacheDir: t.TempDir()}
		_, err := a.Analyze(t.Context(), write("head.jfr", "FLR\x00\x00\x02"))
		wantUnavailable(t, err, srv.URL+"/org/openjdk/jmc/")
	})
}
