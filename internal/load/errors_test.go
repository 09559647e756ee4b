package load

import (
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestErrorMessageOnePerKind: a reset is one message whatever the ports of
// the connection it came on, and none of the words blames the target for
// what may have happened on the way.
func TestErrorMessageOnePerKind(t *testing.T) {
	a := &attack{}
	reset := func(port int) error {
		return &net.OpError{Op: "write", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port},
			Err: os.NewSyscallError("write", syscall.ECONNRESET)}
	}
	if m1, m2 := a.errorMessage(reset(38480)), a.errorMessage(reset(47854)); m1 != m2 {
		t.Errorf("two resets, two messages: %q and %q", m1, m2)
	}
	// A refusal is a reset answering the SYN, which a firewall or a lossy
	// link sends as well as a port nothing listens on.
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, err := range []error{reset(1), fasthttp.ErrConnectionClosed, fmt.Errorf("read: %w", syscall.EPIPE), refused} {
		if m := a.errorMessage(err); !strings.Contains(m, "on the way") {
			t.Errorf("%v: %q, want it said that it may have come on the way", err, m)
		}
	}
}
