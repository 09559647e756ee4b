package server_test

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// unansweredURL returns the base URL of a listener whose accept queue is
// full, so that a connect to it gets no answer and times out: the kernel
// drops SYNs to a full queue. net.Listen cannot set the queue's size, so
// the socket is made by hand with a backlog of 0, then filled.
func unansweredURL(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	// Fill the queue: connects succeed until one does not.
	for range 8 {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return "http://" + addr
		}
		t.Cleanup(func() { conn.Close() })
	}
	t.Fatalf("%s still accepts connections after 8: cannot make a connect time out", addr)
	return ""
}
