package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// sshCommand is the ssh client an ssh:// engine is reached through; tests
// put a stand-in first on PATH.
var sshCommand = "ssh"

// sshDialer reaches the engine behind an ssh:// URL the way the Docker CLI
// does: ssh to the host and run `docker system dial-stdio` there, which
// joins its standard input and output to the engine's socket. The host's
// key and the user's credentials are ssh's business (~/.ssh/config, an
// agent); BatchMode keeps it from asking for a password no one can type.
func sshDialer(u *url.URL) func(ctx context.Context, network, addr string) (net.Conn, error) {
	args := sshArgs(u)
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		return dialCommand(ctx, sshCommand, args...)
	}
}

// sshArgs are ssh's arguments for an ssh://[user@]host[:port] URL.
func sshArgs(u *url.URL) []string {
	args := []string{"-o", "ConnectTimeout=30", "-o", "BatchMode=yes", "-T"}
	if u.User != nil && u.User.Username() != "" {
		args = append(args, "-l", u.User.Username())
	}
	if port := u.Port(); port != "" {
		args = append(args, "-p", port)
	}
	return append(args, "--", u.Hostname(), "docker", "system", "dial-stdio")
}

// dialCommand starts a command and returns its standard input and output
// as a connection. The command outlives ctx, which bounds the start only:
// the HTTP client keeps the connection for later requests.
func dialCommand(ctx context.Context, name string, args ...string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	c := &commandConn{cmd: cmd, stderr: &tailBuffer{max: 4096}, stderrDone: make(chan struct{})}
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	// Its standard error is read here rather than by exec's own copier, so
	// that a read that meets the end of the output can wait for the last
	// of it: exec's copier finishes only in Wait.
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() {
		defer close(c.stderrDone)
		_, _ = io.Copy(c.stderr, stderr)
	}()
	return c, nil
}

// stderrGrace bounds the wait for a command's last error output once its
// standard output has ended: a child it left may hold the pipe open.
const stderrGrace = time.Second

// commandConn is a command's standard input and output as a net.Conn.
// Deadlines are not supported: the HTTP client's own timeouts apply.
type commandConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tailBuffer
	// stderrDone is closed when the command's standard error has ended
	// and been read into stderr.
	stderrDone chan struct{}

	closeOnce sync.Once
}

// Read reads the command's output; when it ends, the error says why, with
// what the command wrote to its standard error (ssh's "Connection refused").
func (c *commandConn) Read(p []byte) (int, error) {
	n, err := c.stdout.Read(p)
	if errors.Is(err, io.EOF) {
		c.awaitStderr()
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			return n, fmt.Errorf("%s: %s", c.cmd.Path, msg)
		}
	}
	return n, err
}

// awaitStderr waits, a little at most, for the command's error output to end.
func (c *commandConn) awaitStderr() {
	select {
	case <-c.stderrDone:
	case <-time.After(stderrGrace):
	}
}

func (c *commandConn) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// Close ends the command and waits for it.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		c.stdin.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
		// Wait closes the pipes: the reader of standard error goes first.
		c.awaitStderr()
		_ = c.cmd.Wait() // killed: its exit status says nothing
	})
	return nil
}

func (c *commandConn) LocalAddr() net.Addr              { return commandAddr{} }
func (c *commandConn) RemoteAddr() net.Addr             { return commandAddr{} }
func (c *commandConn) SetDeadline(time.Time) error      { return nil }
func (c *commandConn) SetReadDeadline(time.Time) error  { return nil }
func (c *commandConn) SetWriteDeadline(time.Time) error { return nil }
func (commandAddr) Network() string                     { return "command" }
func (commandAddr) String() string                      { return "command" }

// commandAddr is the address of either end of a commandConn.
type commandAddr struct{}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if extra := b.buf.Len() - b.max; extra > 0 {
		b.buf.Next(extra)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
