//go:build integration

// Package enginetest starts a second Docker engine on this host for the
// integration tests of remote engines: dockerd in a network namespace of
// its own, joined to the root namespace by a veth pair with addresses of
// the benchmarking range 198.18.0.0/15 (RFC 2544), listening on TCP at the
// namespace's address with TLS and client certificates, as a real host's
// engine should, with its own data root, exec root and sockets. Its
// targets are reached only at that address, as a remote host's would be.
//
// dockerd is started with nsenter --net, which joins the namespace and
// nothing else: `ip netns exec` also remounts /sys, and dockerd then stops
// with "Devices cgroup isn't mounted".
package enginetest

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/targets"
)

// Bounds of the engine's start and stop.
const (
	startTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
)

// The names of what Start makes, each followed by the same random id: the
// namespace, the root namespace's end of the veth pair, the directory of
// dockerd's data, sockets and log (in os.TempDir).
const (
	nsPrefix       = "tbtest-"
	hostVethPrefix = "tbh"
	dirPrefix      = "tb-engine-"
)

// staleAfter is how old a namespace of this package's with no process left
// in it must be to be taken for a dead test's: older than any Start takes
// to put dockerd in it.
const staleAfter = 5 * time.Minute

// Engine is a started second engine.
type Engine struct {
	Host    string           // tcp://198.18.X.2:2376, TLS with client certificates (--tlsverify)
	TLS     targets.TLSFiles // the client's CA, certificate and key
	Address string           // 198.18.X.2, where its targets are reached
	// HostAddress is this host's end of the link, 198.18.X.1: where the
	// engine reaches this host (a swarm manager here, say).
	HostAddress string
	Socket      string // its unix socket, for what speaks to it on this host (a stand-in ssh)
	Log         string // dockerd's log file
	Namespace   string // its network namespace (ip netns), removed when the test ends

	proc *dockerd // the running dockerd, which Restart replaces
}

// dockerd is the engine's process and what starts it again.
type dockerd struct {
	cmd *exec.Cmd
	dir string
	tls serverTLS
}

// Start starts an engine for the test and removes everything it made when
// the test ends, failed or not: dockerd, the namespace, the veth pair and
// the directories. It skips the test, saying why, where it cannot run:
// not root, no nsenter or dockerd, or no network namespace to be had.
func Start(t testing.TB) Engine {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a second Docker engine needs root: it runs in a network namespace of its own")
	}
	for _, tool := range []string{"ip", "nsenter", "dockerd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("a second Docker engine needs %s: %v", tool, err)
		}
	}
	sweepStale(t)
	id := fmt.Sprintf("%06x", rand.Uint32()&0xffffff)
	ns, hostIP, nsIP := addNamespace(t, id)
	dir := filepath.Join(os.TempDir(), dirPrefix+id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeDir(t, dir) })
	clientTLS, serverTLS, err := writeCerts(dir, nsIP)
	if err != nil {
		t.Fatalf("TLS certificates for the engine: %v", err)
	}
	e := Engine{Host: "tcp://" + nsIP + ":2376", TLS: clientTLS, Address: nsIP, HostAddress: hostIP,
		Socket: filepath.Join(dir, "docker.sock"), Log: filepath.Join(dir, "dockerd.log"), Namespace: ns,
		proc: &dockerd{dir: dir, tls: serverTLS}}
	cmd, err := startDockerd(ns, dir, e, serverTLS)
	if err != nil {
		t.Fatalf("start dockerd in %s: %v", ns, err)
	}
	e.proc.cmd = cmd
	t.Cleanup(func() { stopDockerd(t, e.proc.cmd, e) })
	if err := waitReady(cmd, e); err != nil {
		t.Fatalf("the engine in %s did not answer at %s: %v\n%s", ns, e.Host, err, tail(e.Log, 30))
	}
	t.Logf("second engine at %s (TLS) in namespace %s, data in %s", e.Host, ns, dir)
	return e
}

// Restart stops the engine's dockerd as a host's service manager does
// (SIGTERM: it stops its containers, then exits), starts it again on the
// same data, and returns once it answers again: the engine a run was using
// went away under it and came back. It returns how long it was gone.
func (e Engine) Restart(t testing.TB) time.Duration {
	t.Helper()
	began := time.Now()
	stopDockerd(t, e.proc.cmd, e)
	cmd, err := startDockerd(e.Namespace, e.proc.dir, e, e.proc.tls)
	if err != nil {
		t.Fatalf("start dockerd in %s again: %v", e.Namespace, err)
	}
	e.proc.cmd = cmd
	if err := waitReady(cmd, e); err != nil {
		t.Fatalf("the engine in %s did not answer again at %s: %v\n%s", e.Namespace, e.Host, err, tail(e.Log, 30))
	}
	return time.Since(began)
}

// addNamespace makes the namespace, joined to this one by a veth pair on a
// random /30 of 198.18.0.0/16, and returns its name, this host's address
// on the link and the namespace's; all go when the test ends (the
// namespace takes its end of the pair along).
func addNamespace(t testing.TB, id string) (ns, hostIP, nsIP string) {
	t.Helper()
	subnet := rand.IntN(1 << 14)
	hostIP = fmt.Sprintf("198.18.%d.%d", subnet>>6, (subnet&63)*4+1)
	nsIP = fmt.Sprintf("198.18.%d.%d", subnet>>6, (subnet&63)*4+2)
	ns, hostVeth, nsVeth := nsPrefix+id, hostVethPrefix+id, "tbn"+id
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, out)
	}
	t.Cleanup(func() { run(t, "ip", "netns", "del", ns) })
	mustRun(t, "ip", "link", "add", hostVeth, "type", "veth", "peer", "name", nsVeth)
	t.Cleanup(func() { deleteLink(t, hostVeth) })
	mustRun(t, "ip", "link", "set", nsVeth, "netns", ns)
	mustRun(t, "ip", "addr", "add", hostIP+"/30", "dev", hostVeth)
	mustRun(t, "ip", "link", "set", hostVeth, "up")
	mustRun(t, "ip", "-n", ns, "addr", "add", nsIP+"/30", "dev", nsVeth)
	mustRun(t, "ip", "-n", ns, "link", "set", nsVeth, "up")
	mustRun(t, "ip", "-n", ns, "link", "set", "lo", "up")
	t.Logf("namespace %s at %s, veth %s at %s", ns, nsIP, hostVeth, hostIP)
	return ns, hostIP, nsIP
}

// Config is the engine as an operator would configure it, by name.
func (e Engine) Config(name string) targets.EngineConfig {
	return targets.EngineConfig{Name: name, Host: e.Host, TLS: e.TLS, Address: e.Address}
}

// Client connects to the engine over TCP and TLS, for the test's own
// checks; the connection is closed when the test ends.
func (e Engine) Client(t testing.TB) *client.Client {
	t.Helper()
	cli, err := e.newClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func (e Engine) newClient() (*client.Client, error) {
	return client.New(client.WithHost(e.Host), client.WithTLSClientConfig(e.TLS.CA, e.TLS.Cert, e.TLS.Key))
}

// Containers lists the IDs of the engine's containers, running or not,
// that carry every one of labels ("key=value").
func (e Engine) Containers(t testing.TB, labels ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := e.Client(t).ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", labels...)})
	if err != nil {
		t.Fatalf("list containers on %s: %v", e.Host, err)
	}
	ids := make([]string, 0, len(list.Items))
	for _, c := range list.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// sweepStale removes what earlier tests killed before their cleanup left:
// namespaces of this package's with no process in them (their dockerd is
// gone), older than staleAfter, with their veth pair and directory. A live
// test's namespace has its dockerd in it, and is left alone.
func sweepStale(t testing.TB) {
	entries, err := os.ReadDir("/var/run/netns")
	if err != nil {
		return
	}
	for _, entry := range entries {
		id, ok := strings.CutPrefix(entry.Name(), nsPrefix)
		info, err := entry.Info()
		if !ok || err != nil || time.Since(info.ModTime()) < staleAfter {
			continue
		}
		if pids, err := exec.Command("ip", "netns", "pids", entry.Name()).Output(); err != nil || len(strings.TrimSpace(string(pids))) > 0 {
			continue
		}
		t.Logf("removing the namespace %s a killed test left", entry.Name())
		removeDir(t, filepath.Join(os.TempDir(), dirPrefix+id))
		deleteLink(t, hostVethPrefix+id)
		run(t, "ip", "netns", "del", entry.Name())
	}
}

// startDockerd starts dockerd in the namespace, in a process group of its
// own so that what it leaves can be killed with it.
func startDockerd(ns, dir string, e Engine, tls serverTLS) (*exec.Cmd, error) {
	log, err := os.OpenFile(e.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command("nsenter", "--net=/var/run/netns/"+ns, "dockerd",
		"--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "dockerd.pid"),
		"-H", e.Host, "-H", "unix://"+e.Socket,
		"--tlsverify", "--tlscacert", tls.CA, "--tlscert", tls.Cert, "--tlskey", tls.Key,
		"--bridge=none", "--iptables=false")
	cmd.Stdout, cmd.Stderr = log, log
	// nsenter execs dockerd, which keeps the death signal: a test binary
	// killed outright (a timeout) takes its engine along, and the next
	// Start sweeps what is left (sweepStale).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd, cmd.Start()
}

// waitReady waits until the engine answers a ping over TCP. A goroutine
// waits for dockerd for good, so that it is reaped whenever it ends.
func waitReady(cmd *exec.Cmd, e Engine) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	docker, err := e.newClient()
	if err != nil {
		return err
	}
	defer docker.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := docker.Ping(ctx, client.PingOptions{})
		cancel()
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			return err
		}
		select {
		case err := <-exited:
			return fmt.Errorf("dockerd exited: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stopDockerd stops dockerd (it stops its containerd itself), and kills
// its process group if it does not stop in time.
func stopDockerd(t testing.TB, cmd *exec.Cmd, e Engine) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	deadline := time.Now().Add(stopTimeout)
	for alive(cmd.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if alive(cmd.Process.Pid) {
		t.Logf("dockerd did not stop within %s; killing its process group\n%s", stopTimeout, tail(e.Log, 20))
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// alive reports whether a child process still runs (not yet reaped, nor a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// removeDir unmounts what dockerd left mounted under dir (the namespace's
// bind mount in its exec root, overlay layers), deepest first, and removes it.
func removeDir(t testing.TB, dir string) {
	for _, m := range mountsUnder(dir) {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			t.Logf("unmount %s: %v", m, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Errorf("remove %s: %v", dir, err)
	}
}

// mountsUnder lists the mount points under dir, deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil
	}
	defer f.Close()
	var mounts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 1 && strings.HasPrefix(fields[1], dir+"/") {
			mounts = append(mounts, fields[1])
		}
	}
	slices.SortFunc(mounts, func(a, b string) int { return len(b) - len(a) })
	return mounts
}

// deleteLink deletes the veth pair unless the namespace took it along.
func deleteLink(t testing.TB, link string) {
	if exec.Command("ip", "link", "show", link).Run() != nil {
		return
	}
	run(t, "ip", "link", "del", link)
}

func mustRun(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

func run(t testing.TB, name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// tail returns the last lines of a file.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
