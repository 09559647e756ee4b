package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// RequestIDHeader carries the request ID in and out.
const RequestIDHeader = "X-Request-Id"

type requestIDKey struct{}

// requestIDFrom returns the request's ID, or "" outside a request.
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestID keeps a caller's X-Request-Id when it is reasonable, makes one
// up otherwise, and echoes it in the response.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// validRequestID accepts short printable IDs, so that a caller cannot put
// newlines or megabytes into our logs.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status and size of a response for the access
// log and the panic handler. Unwrap lets http.ResponseController reach the
// connection's Flush and deadlines.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// maxLoggedPath bounds the path an access log line quotes: a caller
// cannot put a megabyte into every line.
const maxLoggedPath = 256

// accessLog logs one line per request once it is answered.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.served.Add(1)
		if rec.status == 0 {
			rec.status = http.StatusOK // what net/http sends for a handler that wrote nothing
		}
		s.log.LogAttrs(r.Context(), accessLevel(rec.status), "http request",
			slog.String("requestId", requestIDFrom(r.Context())),
			slog.String("method", r.Method),
			slog.String("path", clip(r.URL.Path, maxLoggedPath)),
			slog.Int("status", rec.status),
			slog.Int64("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

// recoverPanic answers a panicking handler with a 500 problem and logs the
// panic with its stack; the response says nothing about it.
func (s *Server) recoverPanic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v) // net/http's way to abort a response; not ours to swallow
			}
			s.log.ErrorContext(r.Context(), "panic serving request", "requestId", requestIDFrom(r.Context()),
				"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if rec, ok := w.(*statusRecorder); ok && rec.status != 0 {
				return // the response has begun; it cannot become a problem any more
			}
			s.writeProblem(w, r, http.StatusInternalServerError, "internal error", "")
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody refuses bodies over MaxBodyBytes: at once when Content-Length
// says so, or when the reader runs past the limit.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeError(w, r, s.tooLarge())
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tooLarge() error {
	return bench.Errorf(bench.ETOOLARGE, "request body is larger than %d bytes", s.cfg.MaxBodyBytes)
}

// accessLevel logs server errors as errors and the rest as information.
func accessLevel(status int) slog.Level {
	if status >= 500 {
		return slog.LevelError
	}
	return slog.LevelInfo
}
