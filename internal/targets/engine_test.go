package targets_test

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

func TestEngineConfigValidate(t *testing.T) {
	cert := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(cert, []byte("not checked here"), 0o600); err != nil {
		t.Fatal(err)
	}
	valid := targets.EngineConfig{Name: "lab", Host: "tcp://198.18.0.2:2376", Address: "198.18.0.2"}
	for _, tt := range []struct {
		name   string
		change func(*targets.EngineConfig)
		field  string // "" for valid
	}{
		{"Valid", func(*targets.EngineConfig) {}, ""},
		// The benchmarking range (RFC 2544) is an address like any other.
		{"SSH", func(e *targets.EngineConfig) { e.Host = "ssh://bench@lab.example:2222" }, ""},
		{"Unix", func(e *targets.EngineConfig) { e.Host = "unix:///run/lab/docker.sock" }, ""},
		{"TLS", func(e *targets.EngineConfig) { e.TLS = targets.TLSFiles{CA: cert, Cert: cert, Key: cert} }, ""},
		{"HostName", func(e *targets.EngineConfig) { e.Address = "lab.example" }, ""},
		{"BindAll", func(e *targets.EngineConfig) { e.Bind = "0.0.0.0" }, ""},
		{"NameLocal", func(e *targets.EngineConfig) { e.Name = "local" }, "engines[0].name"},
		{"NameURL", func(e *targets.EngineConfig) { e.Name = "tcp://lab" }, "engines[0].name"},
		{"HostHTTP", func(e *targets.EngineConfig) { e.Host = "http://lab:2375" }, "engines[0].host"},
		{"HostNoPort", func(e *targets.EngineConfig) { e.Host = "tcp://lab" }, "engines[0].host"},
		{"TLSOverSSH", func(e *targets.EngineConfig) {
			e.Host, e.TLS = "ssh://lab", targets.TLSFiles{Cert: cert, Key: cert}
		}, "engines[0].tls"},
		{"CertWithoutKey", func(e *targets.EngineConfig) { e.TLS = targets.TLSFiles{Cert: cert} }, "engines[0].tls"},
		{"MissingCA", func(e *targets.EngineConfig) { e.TLS = targets.TLSFiles{CA: "/nonexistent/ca.pem"} }, "engines[0].tls.ca"},
		{"NoAddress", func(e *targets.EngineConfig) { e.Address = "" }, "engines[0].address"},
		{"AddressWithPort", func(e *targets.EngineConfig) { e.Address = "198.18.0.2:8080" }, "engines[0].address"},
		{"AddressUnspecified", func(e *targets.EngineConfig) { e.Address = "0.0.0.0" }, "engines[0].address"},
		{"BindNotIP", func(e *targets.EngineConfig) { e.Bind = "lab.example" }, "engines[0].bind"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := valid
			tt.change(&e)
			err := e.Validate("engines[0]")
			var be *bench.Error
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &be) || be.Field != tt.field):
				t.Errorf("Validate = %v, want a fault in %s", err, tt.field)
			}
		})
	}
}

// ssh runs `docker system dial-stdio` on the host, as the Docker CLI does.
func TestSSHArgs(t *testing.T) {
	for raw, want := range map[string]string{
		"ssh://lab":                    "-o ConnectTimeout=30 -o BatchMode=yes -T -- lab docker system dial-stdio",
		"ssh://bench@lab.example:2222": "-o ConnectTimeout=30 -o BatchMode=yes -T -l bench -p 2222 -- lab.example docker system dial-stdio",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(targets.SSHArgs(u), " "); got != want {
			t.Errorf("sshArgs(%s) = %q\nwant %q", raw, got, want)
		}
	}
}

// A command's standard input and output are a connection: what is written
// comes back through cat; when the command fails, reading says why.
func TestDialCommand(t *testing.T) {
	conn, err := targets.DialCommand(context.Background(), "cat")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping\n" {
		t.Errorf("read %q, %v; want the echo", buf, err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}

	conn, err = targets.DialCommand(context.Background(), "sh", "-c", "echo 'ssh: connect to host lab port 22: Connection refused' >&2")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.ReadAll(conn); err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Errorf("read from a failed command: %v, want its error output", err)
	}
}

// The build context honours .dockerignore, and always has the Dockerfile.
func TestContextArchive(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		".dockerignore":        "*\n!target/app.jar\n",
		"Dockerfile":           "FROM scratch\n",
		"target/app.jar":       "jar",
		"src/Main.java":        "class Main {}",
		"target/classes/x.txt": "x",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rc, err := targets.ContextArchive(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var files []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			files = append(files, h.Name)
		}
	}
	slices.Sort(files)
	if got, want := strings.Join(files, ","), ".dockerignore,Dockerfile,target/app.jar"; got != want {
		t.Errorf("context has %s, want %s", got, want)
	}
}
