package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// configFor loads the configuration the serve command would see (it has
// every flag loadConfig reads) with args and env.
func configFor(t *testing.T, env map[string]string, args ...string) (config, error) {
	t.Helper()
	g := newGlobalState(context.Background(), strings.NewReader(""), &strings.Builder{}, &strings.Builder{},
		func(k string) string { return env[k] })
	cmd, _, err := newRootCmd(g).Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return loadConfig(g, cmd.Flags())
}

// tempFile writes content to name in a fresh temporary directory.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigLayers(t *testing.T) {
	fileA := tempFile(t, "a.yaml", "db: /file-a.db\nserver: http://127.0.0.1:1001\naddr: 127.0.0.1:9001\nrepo: /repo-a\njavaBaseImage: jre:a\n")
	fileB := tempFile(t, "b.yaml", "db: /file-b.db\n")
	defaults := config{DB: "/home/u/.local/share/threadbench/history.db", Addr: defaultAddr, Guardrails: bench.DefaultGuardrails}
	fromA := config{DB: "/file-a.db", Server: "http://127.0.0.1:1001", Addr: "127.0.0.1:9001", Repo: "/repo-a",
		JavaBaseImage: "jre:a", Guardrails: bench.DefaultGuardrails}
	fileSecurity := tempFile(t, "s.yaml", "token: file-token-0123456789\nallowedHosts: [\"bench.lan:8080\", \"[::1]\"]\n")
	edit := func(c config, f func(*config)) config { f(&c); return c }
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want config
	}{
		// Nothing set: the database in the user's data directory, no daemon.
		{"Defaults", map[string]string{"HOME": "/home/u"}, nil, defaults},
		// XDG_DATA_HOME moves the default database.
		{"DefaultsXDG", map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/xdg"}, nil,
			edit(defaults, func(c *config) { c.DB = "/xdg/threadbench/history.db" })},
		// A config file given by flag overrides the defaults.
		{"File", map[string]string{"HOME": "/home/u"}, []string{"--config", fileA}, fromA},
		// ...and given by THREADBENCH_CONFIG.
		{"FileFromEnv", map[string]string{"HOME": "/home/u", envConfig: fileA}, nil, fromA},
		// --config wins over THREADBENCH_CONFIG; the file's fields only.
		{"FileFlagOverEnv", map[string]string{"HOME": "/home/u", envConfig: fileA}, []string{"--config", fileB},
			edit(defaults, func(c *config) { c.DB = "/file-b.db" })},
		// The environment wins over the file.
		{"EnvOverFile", map[string]string{envConfig: fileA, envDB: "/env.db", envServer: "http://127.0.0.1:2002",
			envAddr: "127.0.0.1:9002", envRepo: "/repo-env", envJavaBaseImage: "jre:env"}, nil,
			edit(fromA, func(c *config) {
				c.DB, c.Server, c.Addr, c.Repo, c.JavaBaseImage = "/env.db", "http://127.0.0.1:2002", "127.0.0.1:9002", "/repo-env", "jre:env"
			})},
		// Flags win over the environment and the file.
		{"FlagsOverEnv", map[string]string{envConfig: fileA, envDB: "/env.db", envServer: "http://127.0.0.1:2002",
			envAddr: "127.0.0.1:9002", envJavaBaseImage: "jre:env"},
			[]string{"--db", "/flag.db", "--server", "http://127.0.0.1:3003", "--addr", "127.0.0.1:9003", "--java-base-image", "jre:flag"},
			edit(fromA, func(c *config) {
				c.DB, c.Server, c.Addr, c.JavaBaseImage = "/flag.db", "http://127.0.0.1:3003", "127.0.0.1:9003", "jre:flag"
			})},
		// A flag set to empty clears the daemon the environment named.
		{"FlagClearsServer", map[string]string{envDB: "/env.db", envServer: "http://127.0.0.1:2002"}, []string{"--server="},
			edit(defaults, func(c *config) { c.DB = "/env.db" })},
		// Guardrails the file leaves out keep their defaults.
		{"PartialGuardrails", map[string]string{"HOME": "/home/u"}, []string{"--config", "testdata/config/maxrate-100.yaml"},
			edit(defaults, func(c *config) { c.Guardrails.MaxRate = 100 })},
		// The token and the allowed hosts, from the file...
		{"TokenAndHostsFromFile", map[string]string{"HOME": "/home/u"}, []string{"--config", fileSecurity},
			edit(defaults, func(c *config) {
				c.Token, c.AllowedHosts = "file-token-0123456789", []string{"bench.lan:8080", "[::1]"}
			})},
		// ...from the environment over the file (hosts comma-separated)...
		{"TokenAndHostsFromEnv", map[string]string{"HOME": "/home/u", envConfig: fileSecurity, envToken: "env-token-0123456789",
			envAllowedHosts: "a.lan, b.lan:1"}, nil,
			edit(defaults, func(c *config) { c.Token, c.AllowedHosts = "env-token-0123456789", []string{"a.lan", "b.lan:1"} })},
		// ...and from flags over both; --allowed-host repeats.
		{"TokenAndHostsFromFlags", map[string]string{"HOME": "/home/u", envConfig: fileSecurity, envToken: "env-token-0123456789",
			envAllowedHosts: "a.lan"}, []string{"--token", "flag-token-0123456789", "--allowed-host", "c.lan", "--allowed-host", "d.lan:2"},
			edit(defaults, func(c *config) { c.Token, c.AllowedHosts = "flag-token-0123456789", []string{"c.lan", "d.lan:2"} })},
		// Engines besides the local one, and the default, from the file...
		{"Engines", map[string]string{"HOME": "/home/u"}, []string{"--config", "testdata/config/engines.yaml"},
			edit(defaults, func(c *config) {
				c.Engines = []targets.EngineConfig{{Name: "lab", Host: "tcp://198.18.0.2:2375", Address: "198.18.0.2"}}
				c.DefaultEngine = "lab"
			})},
		// ...the default from the environment over the file.
		{"DefaultEngineFromEnv", map[string]string{"HOME": "/home/u", envDefaultEngine: "local"}, []string{"--config", "testdata/config/engines.yaml"},
			edit(defaults, func(c *config) {
				c.Engines = []targets.EngineConfig{{Name: "lab", Host: "tcp://198.18.0.2:2375", Address: "198.18.0.2"}}
				c.DefaultEngine = "local"
			})},
		// The targets' start bound, from the file, and from the
		// environment over it.
		{"HealthTimeoutFromFile", map[string]string{"HOME": "/home/u"}, []string{"--config", tempFile(t, "h.yaml", "healthTimeout: 5m\n")},
			edit(defaults, func(c *config) { c.HealthTimeout = bench.Duration(5 * time.Minute) })},
		{"HealthTimeoutFromEnv", map[string]string{"HOME": "/home/u", envHealthTimeout: "6m30s"}, []string{"--config", tempFile(t, "h.yaml", "healthTimeout: 5m\n")},
			edit(defaults, func(c *config) { c.HealthTimeout = bench.Duration(6*time.Minute + 30*time.Second) })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configFor(t, tt.env, tt.args...)
			if err != nil {
				t.Fatalf("loadConfig: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("config\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		env   map[string]string
		args  []string
		field string // "" for errors about the file as a whole
		want  string
	}{
		// A server without a scheme.
		{"ServerNoScheme", nil, []string{"--server", "127.0.0.1:8080"}, "server", "must be a URL"},
		// A scheme that is not HTTP.
		{"ServerScheme", map[string]string{envServer: "ftp://127.0.0.1"}, nil, "server", "must be a URL"},
		// No host.
		{"ServerNoHost", nil, []string{"--server", "http://"}, "server", "must be a URL"},
		// A bad server in the file, not overridden.
		{"ServerFromFile", nil, []string{"--config", tempFile(t, "s.yaml", "server: localhost\n")}, "server", `got "localhost"`},
		// An unknown key in the config file.
		{"UnknownKey", nil, []string{"--config", "testdata/config/unknown-key.yaml"}, "", "field maxRate not found"},
		// A config file that is not there.
		{"MissingFile", map[string]string{envConfig: "testdata/config/nope.yaml"}, nil, "", "read config file"},
		// A config file that is not YAML.
		{"MalformedFile", nil, []string{"--config", tempFile(t, "m.yaml", "db: [\n")}, "", "config file"},
		// A Java base image for a major without virtual threads.
		{"JavaBaseImageMajor", nil, []string{"--config", tempFile(t, "j.yaml", "javaBaseImages: {17: 'eclipse-temurin:17-jre'}\n")},
			"javaBaseImages.17", "Java 17 has no virtual threads"},
		// ...or without an image.
		{"JavaBaseImageEmpty", nil, []string{"--config", tempFile(t, "j.yaml", "javaBaseImages: {21: ''}\n")},
			"javaBaseImages.21", "must be an image reference"},
		// A guardrail that is not positive.
		{"Guardrail", nil, []string{"--config", tempFile(t, "g.yaml", "guardrails: {maxRate: -1}\n")}, "guardrails", "every maximum must be positive"},
		// An empty database path.
		{"NoDB", map[string]string{"HOME": "/home/u"}, []string{"--db", ""}, "db", "no database path"},
		// A start bound that is no duration, or negative.
		{"HealthTimeoutEnv", map[string]string{envHealthTimeout: "soon"}, nil, "healthTimeout", `must be a duration such as 6m, got "soon"`},
		{"HealthTimeoutNegative", nil, []string{"--config", tempFile(t, "h.yaml", "healthTimeout: -1m\n")}, "healthTimeout", "must not be negative"},
		// A token short enough to guess; the message does not quote it.
		{"ShortToken", map[string]string{envToken: "abc123"}, nil, "token", "at least 16 characters"},
		// A token a header cannot carry as it is.
		{"TokenWithSpace", nil, []string{"--token", "0123456789 abcdef"}, "token", "printable ASCII"},
		// An allowed host that is a URL.
		{"HostURL", map[string]string{envAllowedHosts: "ok.lan,http://bench.lan"}, nil, "allowedHosts[1]", "must be host:port"},
		// ...or has a path.
		{"HostPath", nil, []string{"--allowed-host", "bench.lan/x"}, "allowedHosts[0]", `got "bench.lan/x"`},
		// An engine whose host is no Docker address.
		{"EngineHost", nil, []string{"--config", tempFile(t, "e.yaml", "engines: [{name: lab, host: 'http://lab:2375', address: 198.18.0.2}]\n")},
			"engines[0].host", "must be tcp://HOST:PORT"},
		// Two engines of one name.
		{"EngineTwice", nil, []string{"--config", tempFile(t, "e.yaml",
			"engines: [{name: lab, host: 'tcp://a:2376', address: 198.18.0.2}, {name: lab, host: 'tcp://b:2376', address: 198.18.0.3}]\n")},
			"engines[1].name", `engine "lab" is configured twice`},
		// A default engine that is not configured.
		{"DefaultEngineUnknown", map[string]string{envDefaultEngine: "staging"}, nil, "defaultEngine", `unknown engine "staging" (configured: local)`},
		// A swarm whose manager is no configured engine.
		{"SwarmManager", nil, []string{"--config", tempFile(t, "s.yaml", "swarm: {manager: tcp://a:2377, generators: 2}\n")},
			"swarm.manager", `must be an engine of this configuration (local)`},
		// ...with no generators.
		{"SwarmGenerators", nil, []string{"--config", tempFile(t, "s.yaml", "swarm: {manager: local}\n")}, "swarm.generators", "must be from 1 to 64, got 0"},
		// ...on no port.
		{"SwarmPort", nil, []string{"--config", tempFile(t, "s.yaml", "swarm: {manager: local, generators: 2, port: 70000}\n")}, "swarm.port", "must be a TCP port"},
		// ...placed by a label no node can carry.
		{"SwarmLabel", nil, []string{"--config", tempFile(t, "s.yaml", "swarm: {manager: local, generators: 2, label: 'Load Me'}\n")}, "swarm.label", "must be a node label's key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := configFor(t, tt.env, tt.args...)
			var be *bench.Error
			if !errors.As(err, &be) {
				t.Fatalf("error %v, want a *bench.Error", err)
			}
			if be.Code != bench.EINVALID || be.Field != tt.field {
				t.Errorf("code %q field %q, want %q %q", be.Code, be.Field, bench.EINVALID, tt.field)
			}
			if !strings.Contains(be.Error(), tt.want) {
				t.Errorf("error %q lacks %q", be.Error(), tt.want)
			}
			if tt.field == "token" && strings.Contains(be.Error(), "abc123") {
				t.Errorf("error %q quotes the token", be.Error())
			}
		})
	}
}

// TestConfigLayersCLI checks the layers through a real command: which
// database file runs list creates, and which daemon it asks.
func TestConfigLayersCLI(t *testing.T) {
	t.Run("DB", func(t *testing.T) {
		dir := t.TempDir()
		path := func(name string) string { return filepath.Join(dir, name) }
		config := tempFile(t, "c.yaml", "db: "+path("file.db")+"\n")
		for _, tt := range []struct {
			name    string
			env     map[string]string
			args    []string
			created string
		}{
			// The config file names the database.
			{"File", map[string]string{envConfig: config}, nil, "file.db"},
			// THREADBENCH_DB wins over the file.
			{"Env", map[string]string{envConfig: config, envDB: path("env.db")}, nil, "env.db"},
			// --db wins over both.
			{"Flag", map[string]string{envConfig: config, envDB: path("env.db")}, []string{"--db", path("flag.db")}, "flag.db"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				for _, name := range []string{"file.db", "env.db", "flag.db"} {
					os.Remove(path(name))
				}
				code, stdout, stderr := run(t, tt.env, append([]string{"runs", "list"}, tt.args...)...)
				mustOK(t, code, stderr)
				if got, want := strings.TrimSpace(stdout), "ID  CREATED  STATUS  NAME  LABELS  TARGETS  PROFILE  HEADLINE"; got != want {
					t.Errorf("stdout %q, want the header of an empty list %q", got, want)
				}
				for _, name := range []string{"file.db", "env.db", "flag.db"} {
					_, err := os.Stat(path(name))
					if exists := err == nil; exists != (name == tt.created) {
						t.Errorf("%s exists: %v, want %v", name, exists, name == tt.created)
					}
				}
			})
		}
	})
	t.Run("Server", func(t *testing.T) {
		var envHits, flagHits atomic.Int32
		daemon := func(hits *atomic.Int32) *httptest.Server {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if r.URL.Path != "/runs" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"runs": [], "nextCursor": ""}`))
			}))
			t.Cleanup(srv.Close)
			return srv
		}
		envDaemon, flagDaemon := daemon(&envHits), daemon(&flagHits)
		db := filepath.Join(t.TempDir(), "history.db")
		env := map[string]string{envDB: db, envServer: envDaemon.URL}

		code, _, stderr := run(t, env, "runs", "list")
		mustOK(t, code, stderr)
		code, _, stderr = run(t, env, "runs", "list", "--server", flagDaemon.URL)
		mustOK(t, code, stderr)
		if got, want := envHits.Load(), int32(1); got != want {
			t.Errorf("daemon of THREADBENCH_SERVER asked %d times, want %d", got, want)
		}
		if got, want := flagHits.Load(), int32(1); got != want {
			t.Errorf("daemon of --server asked %d times, want %d", got, want)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("local history %s opened although a daemon was named (err %v)", db, err)
		}
	})
	// The CLI sends the configured token to the daemon, and none without one.
	t.Run("Token", func(t *testing.T) {
		var got atomic.Value
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Header.Get("Authorization"))
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"runs": []}`))
		}))
		t.Cleanup(srv.Close)
		for _, tt := range []struct {
			name string
			env  map[string]string
			want string
		}{
			{"FromEnv", map[string]string{envServer: srv.URL, envToken: "env-token-0123456789"}, "Bearer env-token-0123456789"},
			{"FromFile", map[string]string{envServer: srv.URL, envConfig: tempFile(t, "t.yaml", "token: file-token-0123456789\n")},
				"Bearer file-token-0123456789"},
			{"None", map[string]string{envServer: srv.URL}, ""},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got.Store("unset")
				code, _, stderr := run(t, tt.env, "runs", "list")
				mustOK(t, code, stderr)
				if got.Load() != tt.want {
					t.Errorf("Authorization = %q, want %q", got.Load(), tt.want)
				}
			})
		}
	})
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		// A server URL that is no URL: exit 2 naming server.
		{"ErrServer", nil, []string{"--server", "localhost:8080"}, "error: server: must be a URL"},
		// ...also from the environment.
		{"ErrServerEnv", map[string]string{envServer: "tcp://127.0.0.1:1"}, nil, "error: server: must be a URL"},
		// A config file with an unknown key.
		{"ErrUnknownKey", nil, []string{"--config", "testdata/config/unknown-key.yaml"}, "field maxRate not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "history.db")
			code, stdout, stderr := run(t, tt.env, append([]string{"runs", "list", "--db", db}, tt.args...)...)
			wantBadInput(t, code, stdout, stderr, tt.want)
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("history %s created despite a bad configuration", db)
			}
		})
	}
}

// javaBaseImages in the config file reach the runtime's options.
func TestConfigJavaBaseImages(t *testing.T) {
	cfg, err := configFor(t, nil, "--config", tempFile(t, "j.yaml", "javaBaseImages: {21: 'registry.lan/temurin:21-jre'}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := newGlobalState(context.Background(), nil, nil, nil, nil)
	if got := cfg.runtimeOptions(g).JavaBaseImages; !reflect.DeepEqual(got, map[int]string{21: "registry.lan/temurin:21-jre"}) {
		t.Errorf("runtime's JavaBaseImages = %v", got)
	}
}
