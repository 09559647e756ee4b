package main

import (
	"net/url"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
)

// config is the orchestrator's configuration, built in layers: defaults,
// then the config file, then environment, then flags, then validate.
type config struct {
	DB            string           `yaml:"db"`
	Server        string           `yaml:"server"`
	Addr          string           `yaml:"addr"`
	Repo          string           `yaml:"repo"`
	JavaBaseImage string           `yaml:"javaBaseImage"`
	Guardrails    bench.Guardrails `yaml:"guardrails"`
}

// Environment variables the configuration reads.
const (
	envConfig        = "THREADBENCH_CONFIG"
	envDB            = "THREADBENCH_DB"
	envServer        = "THREADBENCH_SERVER"
	envAddr          = "THREADBENCH_ADDR"
	envRepo          = "THREADBENCH_REPO"
	envJavaBaseImage = "THREADBENCH_JAVA_BASE_IMAGE"
)

const defaultAddr = "127.0.0.1:8080"

// loadConfig builds the configuration for a command from its flags.
func loadConfig(g *globalState, flags *pflag.FlagSet) (config, error) {
	cfg := config{DB: store.DefaultPath(g.getenv), Addr: defaultAddr, Guardrails: bench.DefaultGuardrails}
	path := firstNonEmpty(flagString(flags, "config"), g.getenv(envConfig))
	if path != "" {
		if err := readConfigFile(path, &cfg); err != nil {
			return cfg, err
		}
	}
	for env, field := range map[string]*string{envDB: &cfg.DB, envServer: &cfg.Server, envAddr: &cfg.Addr, envRepo: &cfg.Repo, envJavaBaseImage: &cfg.JavaBaseImage} {
		if v := g.getenv(env); v != "" {
			*field = v
		}
	}
	for name, field := range map[string]*string{"db": &cfg.DB, "server": &cfg.Server, "addr": &cfg.Addr, "java-base-image": &cfg.JavaBaseImage} {
		if flags.Changed(name) {
			*field = flagString(flags, name)
		}
	}
	return cfg, cfg.Validate()
}

func readConfigFile(path string, cfg *config) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return bench.Errorf(bench.EINVALID, "read config file: %v", err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		return bench.Errorf(bench.EINVALID, "config file %s: %v", path, err)
	}
	return nil
}

// Validate checks the configuration once all layers are applied.
func (c config) Validate() error {
	if c.DB == "" {
		return bench.FieldErrorf("db", "no database path (set --db or %s)", envDB)
	}
	if c.Server != "" {
		u, err := url.Parse(c.Server)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bench.FieldErrorf("server", "must be a URL such as http://127.0.0.1:8080, got %q", c.Server)
		}
	}
	g := c.Guardrails
	if g.MaxRate <= 0 || g.MaxConcurrency <= 0 || g.MaxDuration <= 0 || g.MaxQueue <= 0 || g.MaxTimeout <= 0 {
		return bench.FieldErrorf("guardrails", "every maximum must be positive, got %+v", g)
	}
	return nil
}

func flagString(flags *pflag.FlagSet, name string) string {
	f := flags.Lookup(name)
	if f == nil {
		return ""
	}
	return f.Value.String()
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// runtimeOptions are the Docker runtime's options the configuration sets.
func (c config) runtimeOptions(g *globalState) targets.RuntimeOptions {
	return targets.RuntimeOptions{RepoRoot: c.Repo, Catalog: g.catalog, JavaBaseImage: c.JavaBaseImage}
}
