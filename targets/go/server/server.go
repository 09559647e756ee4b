package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Defaults of the configuration, per the contract.
const (
	DefaultBindAddr = "127.0.0.1"
	DefaultPort     = 8080
	DefaultTarget   = "go"
)

// Timeouts of the HTTP server. There is no read timeout: net/http would
// cancel a request's context when its connection's read deadline passes
// mid-handler. The write timeout must outlast the longest request the
// contract allows (60s).
const (
	readHeaderTimeout = 10 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
)

// Config is how the server is set up. ConfigFromEnv reads it from the
// contract's environment variables.
type Config struct {
	BindAddr   string   // BIND_ADDR
	Port       int      // PORT; 0 picks a free port
	Target     string   // TARGET_NAME, reported in every work response
	Downstream string   // DOWNSTREAM_URL, the base URL fan-outs call; "" for none
	Workers    int      // WORKERS, requests served at once; 0 for unbounded
	DB         DBConfig // DB_*, the database /api/db reads; a zero Kind for none
}

// ConfigFromEnv reads BIND_ADDR, PORT, TARGET_NAME, DOWNSTREAM_URL,
// WORKERS and the DB_* variables through getenv, falling back to the
// defaults for unset or empty variables.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	db, err := dbConfigFromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{BindAddr: DefaultBindAddr, Port: DefaultPort, Target: DefaultTarget, DB: db}
	if v := getenv("BIND_ADDR"); v != "" {
		cfg.BindAddr = v
	}
	if v := getenv("TARGET_NAME"); v != "" {
		cfg.Target = v
	}
	if v := getenv("DOWNSTREAM_URL"); v != "" {
		if err := checkDownstreamURL(v); err != nil {
			return Config{}, err
		}
		cfg.Downstream = v
	}
	if v := getenv("WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return Config{}, fmt.Errorf("WORKERS must be a non-negative integer, got %q", v)
		}
		cfg.Workers = n
	}
	if v := getenv("PORT"); v != "" {
		port, err := strconv.Atoi(v)
		if err != nil || port < 0 || port > 65535 {
			return Config{}, fmt.Errorf("PORT must be an integer from 0 to 65535, got %q", v)
		}
		cfg.Port = port
	}
	return cfg, nil
}

// checkDownstreamURL refuses a DOWNSTREAM_URL that could not be called, so
// that a typo stops the target at start rather than failing every call.
func checkDownstreamURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("DOWNSTREAM_URL must be an http:// or https:// base URL, got %q", v)
	}
	return nil
}

// Addr returns the host:port to listen on.
func (c Config) Addr() string {
	return net.JoinHostPort(c.BindAddr, strconv.Itoa(c.Port))
}

// Server is the Go target: the contract's handler on an HTTP server.
type Server struct {
	cfg     Config
	handler *Handler
	http    *http.Server
	ln      net.Listener
	done    chan struct{}
	err     error // why serving stopped, if not Close; set before done closes
}

// New returns a server for cfg; Open starts it.
func New(cfg Config) *Server {
	// HTTP/1 only, so that each connection's requests run on its own
	// goroutine, which ConnContext's cache relies on. Without TLS net/http
	// would not speak HTTP/2 anyway; this says so.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	handler := NewHandler(cfg.Target, WithDownstream(cfg.Downstream), WithWorkers(cfg.Workers), WithDatabase(cfg.DB))
	return &Server{
		cfg:     cfg,
		handler: handler,
		http: &http.Server{
			Handler:           handler,
			ConnContext:       ConnContext,
			Protocols:         &protocols,
			ReadHeaderTimeout: readHeaderTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
		},
		done: make(chan struct{}),
	}
}

// Open listens on the configured address and serves in the background
// until Close.
func (s *Server) Open() error {
	ln, err := net.Listen("tcp", s.cfg.Addr())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr(), err)
	}
	s.ln = ln
	go s.serve()
	return nil
}

func (s *Server) serve() {
	defer close(s.done)
	if err := s.http.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		s.err = fmt.Errorf("serve: %w", err)
	}
}

// Addr returns the address the server listens on, with the real port when
// Config.Port was 0. It is valid after Open.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Done is closed when the server stops serving: after Close, or on its own
// when serving fails (see Err).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err returns why serving stopped on its own, or nil. Call it after Done.
func (s *Server) Err() error { return s.err }

// Close stops accepting connections and waits for requests in flight until
// ctx ends; then it closes the connections still open and returns ctx's error.
func (s *Server) Close(ctx context.Context) error {
	if s.ln == nil {
		return nil
	}
	err := s.http.Shutdown(ctx)
	if err != nil {
		// Handlers still sleeping keep running, but their clients are cut off.
		_ = s.http.Close()
		err = fmt.Errorf("shutdown with requests in flight: %w", err)
	}
	<-s.done
	s.handler.Close()
	return err
}
