//go:build integration

package targets_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
	"github.com/threadbench/threadbench/internal/targets/contracttest"
	"github.com/threadbench/threadbench/internal/targets/enginetest"
)

// TestRemoteEngine drives a second engine, in a network namespace of this
// host, as a remote one: the Go target is built there (the same inputs hash,
// the same tag), started bound to the engine's address, checked against the
// contract there, read for container stats from that engine, stopped and
// cleaned up there; an image the local engine has is loaded rather than
// built; and the engine is reached over ssh as well as over TCP with TLS,
// which refuses a client without a certificate.
func TestRemoteEngine(t *testing.T) {
	eng := enginetest.Start(t)
	lab := eng.Config("lab")
	local := newRuntime(t)
	localImg := buildGo(t, local)
	remote := newRuntimeWith(t, targets.RuntimeOptions{Engine: lab, History: "test-remote-" + runID(t)[len(runID(t))-8:]})

	t.Run("Engine", func(t *testing.T) {
		info, err := remote.Engine(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v", info)
		if info.Name != "lab" || !info.Remote || info.Address != eng.Address || info.Host == "" || info.CPUs < 1 || info.DockerVersion == "" {
			t.Errorf("Engine = %+v, want lab, remote, at %s, with its host's figures", info, eng.Address)
		}
	})

	t.Run("TLSRequired", func(t *testing.T) {
		noCert := lab
		noCert.TLS.Cert, noCert.TLS.Key = "", ""
		if info, err := newRuntimeWith(t, targets.RuntimeOptions{Engine: noCert}).Engine(context.Background()); err == nil {
			t.Errorf("Engine without a client certificate = %+v, want refused", info)
		}
	})

	var img bench.ImageInfo
	t.Run("BuildThere", func(t *testing.T) {
		var err error
		img, err = remote.BuildTarget(context.Background(), bench.TargetGo, targets.BuildOptions{Log: testWriter{t}})
		if err != nil {
			t.Fatal(err)
		}
		if img.Cached || img.Ref != localImg.Ref {
			t.Errorf("Build on lab = %+v, want built there with the local tag %s (same inputs)", img, localImg.Ref)
		}
		again, err := remote.BuildTarget(context.Background(), bench.TargetGo, targets.BuildOptions{})
		if err != nil || !again.Cached || again.ID != img.ID {
			t.Errorf("second Build on lab = %+v, %v; want the cached %s", again, err, img.ID)
		}
	})
	if img.Ref == "" {
		t.FailNow()
	}

	t.Run("Contract", func(t *testing.T) {
		id := runID(t)
		inst := start(t, remote, bench.TargetGo, img, targets.StartOptions{Limits: bench.Limits{CPUs: 1, MemoryMiB: 256}, RunID: id})
		if want := "http://" + eng.Address + ":"; !strings.HasPrefix(inst.BaseURL(), want) {
			t.Fatalf("BaseURL = %s, want the engine's address %s", inst.BaseURL(), want)
		}
		if got := inst.Settings()["bindAddress"]; got != eng.Address {
			t.Errorf("bindAddress = %q, want %q", got, eng.Address)
		}
		contracttest.Run(t, inst.BaseURL(), contracttest.Options{Target: bench.TargetGo, MetricsPath: "/metrics", ThreadModel: bench.ThreadModelGoroutines})
		stats, err := inst.ContainerStats(context.Background(), inst.ContainerID(), client.ContainerStatsOptions{Stream: false})
		if err != nil {
			t.Fatalf("container stats from lab: %v", err)
		}
		stats.Body.Close()
		if left := labelled(t, id); len(left) != 0 {
			t.Errorf("the local engine has containers of a run on lab: %v", left)
		}
		if err := inst.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if left := eng.Containers(t, targets.LabelManaged+"=true", targets.LabelRun+"="+id); len(left) != 0 {
			t.Fatalf("containers left on lab after Stop: %v", left)
		}
	})

	t.Run("LoadedFromLocal", func(t *testing.T) {
		if _, err := eng.Client(t).ImageRemove(context.Background(), img.Ref, client.ImageRemoveOptions{Force: true}); err != nil {
			t.Fatalf("remove %s from lab: %v", img.Ref, err)
		}
		loader := newRuntimeWith(t, targets.RuntimeOptions{Engine: lab, ImageSource: local})
		var log strings.Builder
		got, err := loader.BuildTarget(context.Background(), bench.TargetGo, targets.BuildOptions{Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Cached || got.Ref != localImg.Ref || !strings.Contains(log.String(), "docker save "+localImg.Ref) {
			t.Errorf("Build on lab with the local engine's image = %+v, log %q; want it loaded, not built", got, log.String())
		}
	})

	t.Run("Cleanup", func(t *testing.T) {
		id := runID(t)
		start(t, remote, bench.TargetGo, img, targets.StartOptions{RunID: id})
		removed, err := remote.Cleanup(context.Background())
		if err != nil || removed != 1 || len(eng.Containers(t, targets.LabelManaged+"=true", targets.LabelRun+"="+id)) != 0 {
			t.Fatalf("Cleanup on lab removed %d (%v), left %v; want its one container gone", removed, err, eng.Containers(t, targets.LabelManaged+"=true", targets.LabelRun+"="+id))
		}
	})

	t.Run("SSH", func(t *testing.T) {
		// A stand-in ssh on PATH does what sshd and the remote docker CLI
		// would: it joins its standard input and output to the engine.
		dir := t.TempDir()
		script := fmt.Sprintf("#!/bin/sh\nexec docker -H unix://%s system dial-stdio\n", eng.Socket)
		if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		viaSSH := newRuntimeWith(t, targets.RuntimeOptions{Engine: targets.EngineConfig{Name: "lab-ssh", Host: "ssh://bench@lab.invalid", Address: eng.Address}})
		info, err := viaSSH.Engine(context.Background())
		if err != nil || info.DockerVersion == "" {
			t.Fatalf("Engine over ssh = %+v, %v", info, err)
		}
		inst := start(t, viaSSH, bench.TargetGo, img, targets.StartOptions{RunID: runID(t)})
		if st, err := inst.State(context.Background()); err != nil || !st.Running {
			t.Errorf("State over ssh = %+v, %v", st, err)
		}
	})
}
