package targets

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
)

// localAddress is where the local engine's targets listen and are reached:
// loopback only.
const localAddress = "127.0.0.1"

// EngineConfig says how to reach a Docker engine and the targets it runs.
// The zero value is the local engine: DOCKER_HOST, or the default socket,
// with its targets on 127.0.0.1.
//
// It is the operator's configuration, not a fact about a host, and so does
// not embed bench.Machine: its Host is the Docker client's address of the
// engine (tcp://, ssh://), not the host's name, and nothing in it is
// measured. What the engine reports of its host is a bench.Machine, in
// the bench.EngineInfo that Runtime.Engine returns.
type EngineConfig struct {
	// Name is how run specs name the engine; empty means bench.EngineLocal.
	Name string `yaml:"name" json:"name"`
	// Host is the engine's address in the Docker client's terms:
	// tcp://host:2376 (with TLS files), ssh://user@host (the Docker CLI's
	// way: ssh runs `docker system dial-stdio` there), unix:///path.
	Host string `yaml:"host" json:"host"`
	// TLS are the client's certificate files for a tcp:// host.
	TLS TLSFiles `yaml:"tls,omitempty" json:"tls,omitempty"`
	// Address is where the targets started on that engine are reached from
	// the load generator: an IP address or a host name of that host.
	Address string `yaml:"address" json:"address"`
	// Bind is the address targets listen on there; empty means Address.
	// 0.0.0.0 (every interface) only when the operator writes it.
	Bind string `yaml:"bind,omitempty" json:"bind,omitempty"`
}

// TLSFiles are the PEM files of a TLS client: the CA that signed the
// engine's certificate (empty: the system's roots), and the client's
// certificate and key, which an engine run with --tlsverify requires.
type TLSFiles struct {
	CA   string `yaml:"ca,omitempty" json:"ca,omitempty"`
	Cert string `yaml:"cert,omitempty" json:"cert,omitempty"`
	Key  string `yaml:"key,omitempty" json:"key,omitempty"`
}

func (t TLSFiles) set() bool { return t != TLSFiles{} }

// Remote reports whether the config is of an engine other than the local one.
func (e EngineConfig) Remote() bool { return e.Name != "" && e.Name != bench.EngineLocal }

// withDefaults names the local engine and gives it its loopback address.
func (e EngineConfig) withDefaults() EngineConfig {
	if e.Name == "" {
		e.Name = bench.EngineLocal
	}
	if !e.Remote() && e.Address == "" {
		e.Address = localAddress
	}
	if e.Bind == "" {
		e.Bind = e.Address
	}
	return e
}

// bindAddress is what the engine's targets listen on.
func (e EngineConfig) bindAddress() string { return e.withDefaults().Bind }

// Validate checks a remote engine's configuration; field is its path in
// the configuration ("engines[0]"), for messages.
func (e EngineConfig) Validate(field string) error {
	switch {
	case !bench.ValidEngineName(e.Name):
		return bench.FieldErrorf(field+".name", "must be a lower-case letter, then lower-case letters, digits or '-', at most %d characters, got %q", bench.MaxEngineName, e.Name)
	case e.Name == bench.EngineLocal:
		return bench.FieldErrorf(field+".name", "%q is the engine on this host, always there; name the others otherwise", bench.EngineLocal)
	}
	if err := e.validateHost(field + ".host"); err != nil {
		return err
	}
	if err := validAddress(e.Address); err != nil {
		return bench.FieldErrorf(field+".address", "where this engine's targets are reached: %v", err)
	}
	if e.Bind != "" {
		if ip := net.ParseIP(e.Bind); ip == nil {
			return bench.FieldErrorf(field+".bind", "must be an IP address (0.0.0.0 for every interface), got %q", e.Bind)
		}
	}
	return nil
}

// validateHost checks the engine's address in the Docker client's terms.
func (e EngineConfig) validateHost(field string) error {
	u, err := url.Parse(e.Host)
	if err != nil {
		return bench.FieldErrorf(field, "must be tcp://HOST:PORT, ssh://[USER@]HOST[:PORT] or unix:///PATH, got %q", e.Host)
	}
	switch u.Scheme {
	case "tcp":
		if u.Hostname() == "" || u.Port() == "" {
			return bench.FieldErrorf(field, "a tcp:// host needs a host and a port (2376 with TLS), got %q", e.Host)
		}
	case "ssh":
		if u.Hostname() == "" || (u.Path != "" && u.Path != "/") {
			return bench.FieldErrorf(field, "an ssh:// host is ssh://[USER@]HOST[:PORT], got %q", e.Host)
		}
	case "unix":
		if u.Path == "" {
			return bench.FieldErrorf(field, "a unix:// host needs a socket path, got %q", e.Host)
		}
	default:
		return bench.FieldErrorf(field, "must be tcp://HOST:PORT, ssh://[USER@]HOST[:PORT] or unix:///PATH, got %q", e.Host)
	}
	return e.validateTLS(field, u.Scheme)
}

// validateTLS checks the TLS files: for tcp:// only, a certificate with its
// key, each readable.
func (e EngineConfig) validateTLS(hostField, scheme string) error {
	field := strings.TrimSuffix(hostField, ".host") + ".tls"
	if !e.TLS.set() {
		return nil
	}
	if scheme != "tcp" {
		return bench.FieldErrorf(field, "TLS files are for a tcp:// host; %s:// brings its own security", scheme)
	}
	if (e.TLS.Cert == "") != (e.TLS.Key == "") {
		return bench.FieldErrorf(field, "cert and key go together")
	}
	for name, path := range map[string]string{"ca": e.TLS.CA, "cert": e.TLS.Cert, "key": e.TLS.Key} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return bench.FieldErrorf(field+"."+name, "cannot be read: %v", err)
		}
	}
	return nil
}

// validAddress checks an address targets are reached at: an IP address
// other than the unspecified one, or a host name; no port, no scheme.
func validAddress(addr string) error {
	if ip := net.ParseIP(addr); ip != nil {
		if ip.IsUnspecified() {
			return fmt.Errorf("%s is every interface, not an address to reach; set bind: %s and the host's address here", addr, addr)
		}
		return nil
	}
	if addr == "" || strings.ContainsAny(addr, ":/@ ") || len(addr) > 253 {
		return fmt.Errorf("must be an IP address or a host name without port or scheme, got %q", addr)
	}
	return nil
}

// newClient connects a Docker API client to the engine: DOCKER_HOST's for
// the local one, the configured host, TLS files or ssh for the others. The
// API version is negotiated at the first call (engine 20.10 speaks 1.41).
func (e EngineConfig) newClient() (*client.Client, error) {
	if !e.Remote() {
		return client.New(client.FromEnv)
	}
	u, err := url.Parse(e.Host)
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", e.Name, err)
	}
	if u.Scheme == "ssh" {
		// The client speaks HTTP over the ssh pipe; the host name is a
		// placeholder, as in the Docker CLI.
		return client.New(client.WithHost("http://docker.example.com"), client.WithDialContext(sshDialer(u)))
	}
	opts := []client.Opt{client.WithHost(e.Host)}
	if e.TLS.set() {
		opts = append(opts, client.WithTLSClientConfig(e.TLS.CA, e.TLS.Cert, e.TLS.Key))
	}
	return client.New(opts...)
}
