package server

import (
	"bytes"
	"context"
	"net"
	"runtime"
)

// connThreadKey is the context key of a connection's connThread.
type connThreadKey struct{}

// connThread caches a connection's "goroutine N". Reading the id costs a
// runtime.Stack traceback (about 5µs, most of a light request's handler
// time), and net/http serves an HTTP/1 connection's requests one after
// another on the connection's own goroutine, so once per connection is
// enough. Only that goroutine touches it, so it needs no lock.
type connThread struct {
	name []byte
}

// ConnContext is an http.Server ConnContext hook that lets the handler read
// the goroutine id once per connection instead of once per request. New
// sets it, with HTTP/1 as the only protocol, which is what makes the cache
// right; without it the handler reads the id on every request.
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connThreadKey{}, new(connThread))
}

// appendThread appends "goroutine N" for the goroutine running the handler,
// from the connection's cache when there is one. stack is scratch space.
func appendThread(b []byte, ctx context.Context, stack []byte) []byte {
	ct, _ := ctx.Value(connThreadKey{}).(*connThread)
	if ct == nil {
		return appendGoroutine(b, stack)
	}
	if ct.name == nil {
		ct.name = appendGoroutine(nil, stack)
	}
	return append(b, ct.name...)
}

// appendGoroutine appends "goroutine N", N being the calling goroutine's
// id, read from the first line of its stack trace, "goroutine N [running]:".
// stack need only hold that line; runtime.Stack cuts the rest.
func appendGoroutine(b, stack []byte) []byte {
	const prefix = "goroutine "
	line := stack[:runtime.Stack(stack, false)]
	id, ok := bytes.CutPrefix(line, []byte(prefix))
	end := 0
	for ok && end < len(id) && '0' <= id[end] && id[end] <= '9' {
		end++
	}
	if end == 0 {
		return append(b, "goroutine ?"...)
	}
	return append(append(b, prefix...), id[:end]...)
}
