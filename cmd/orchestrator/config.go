package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
	"github.com/threadbench/threadbench/internal/httpapi"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/targets"
)

// config is the orchestrator's configuration, built in layers: defaults,
// then the config file, then environment, then flags, then validate.
type config struct {
	DB            string `yaml:"db"`
	Server        string `yaml:"server"`
	Addr          string `yaml:"addr"`
	Repo          string `yaml:"repo"`
	JavaBaseImage string `yaml:"javaBaseImage"`
	// JavaBaseImages are the JRE images of other Java majors, for targets
	// built with a JDK variant (java-virtual@21): {21: eclipse-temurin:21-jre}.
	// A major without one is pulled as eclipse-temurin:<major>-jre, or
	// assembled here.
	JavaBaseImages map[int]string `yaml:"javaBaseImages"`
	// JavaToolOptions are JVM options every JVM target starts with (added
	// to its JAVA_TOOL_OPTIONS, recorded in its settings): the operator's,
	// for every run; a run cannot name its own. -XX:TieredStopAtLevel=1
	// halves a Spring Boot start's CPU for checks that measure nothing
	// (make test's side-by-side part); a measurement wants none.
	JavaToolOptions string `yaml:"javaToolOptions"`
	// HealthTimeout bounds a target's start where neither its entry nor
	// the run names a bound (default targets.DefaultHealthTimeout): room
	// for a machine whose starts are slower (make test's side-by-side
	// part, JVMs starting on saturated CPUs).
	HealthTimeout bench.Duration   `yaml:"healthTimeout"`
	Guardrails    bench.Guardrails `yaml:"guardrails"`
	// Token is the daemon's bearer token: serve requires it of every
	// request, the CLI sends it to a daemon.
	Token string `yaml:"token"`
	// AllowedHosts are Host names the daemon answers besides its own
	// (host:port, or host for any port).
	AllowedHosts []string `yaml:"allowedHosts"`
	// Engines are the Docker engines besides the local one that runs may
	// place targets on, by name; DefaultEngine is where a run that names
	// none goes (empty: local).
	Engines       []targets.EngineConfig `yaml:"engines"`
	DefaultEngine string                 `yaml:"defaultEngine"`
	// Targets are services of one's own (an image, a Dockerfile or a
	// jar), run beside the built-in targets by name and variant
	// (myapp@virtual). Relative paths are from the config file's directory.
	Targets []targets.Own `yaml:"targets"`
	// AttackLock is the file whose lock lets only one run attack at a time
	// (empty: runner.DefaultLockPath, shared by every threadbench process of
	// the host's temporary directory). Processes that share a lock take
	// turns; one with a lock of its own attacks beside them, which is only
	// fair when its figures are not compared (a test that measures nothing).
	AttackLock string `yaml:"attackLock"`
	// Swarm, when set, sends every attack from generators on the nodes of
	// a Docker swarm instead of this process (swarm.go).
	Swarm *swarmConfig `yaml:"swarm"`
}

// Environment variables the configuration reads.
const (
	envConfig        = "THREADBENCH_CONFIG"
	envDB            = "THREADBENCH_DB"
	envServer        = "THREADBENCH_SERVER"
	envAddr          = "THREADBENCH_ADDR"
	envRepo          = "THREADBENCH_REPO"
	envJavaBaseImage = "THREADBENCH_JAVA_BASE_IMAGE"
	envJavaTool      = "THREADBENCH_JAVA_TOOL_OPTIONS"
	envToken         = "THREADBENCH_TOKEN"
	envAllowedHosts  = "THREADBENCH_ALLOWED_HOSTS" // comma-separated
	envDefaultEngine = "THREADBENCH_DEFAULT_ENGINE"
	envAttackLock    = "THREADBENCH_ATTACK_LOCK"
	envHealthTimeout = "THREADBENCH_HEALTH_TIMEOUT" // a Go duration
)

// minJavaMajor is the first Java with virtual threads.
const minJavaMajor = 21

// minTokenLength is the shortest token the daemon takes: one that guards a
// daemon reachable from the network must not be guessable.
const minTokenLength = 16

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
	for env, field := range map[string]*string{envDB: &cfg.DB, envServer: &cfg.Server, envAddr: &cfg.Addr, envRepo: &cfg.Repo,
		envJavaBaseImage: &cfg.JavaBaseImage, envJavaTool: &cfg.JavaToolOptions, envToken: &cfg.Token, envDefaultEngine: &cfg.DefaultEngine, envAttackLock: &cfg.AttackLock} {
		if v := g.getenv(env); v != "" {
			*field = v
		}
	}
	if v := g.getenv(envAllowedHosts); v != "" {
		cfg.AllowedHosts = splitList(v)
	}
	if v := g.getenv(envHealthTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return cfg, bench.FieldErrorf("healthTimeout", "%s must be a duration such as 6m, got %q", envHealthTimeout, v)
		}
		cfg.HealthTimeout = bench.Duration(d)
	}
	for name, field := range map[string]*string{"db": &cfg.DB, "server": &cfg.Server, "addr": &cfg.Addr, "java-base-image": &cfg.JavaBaseImage, "token": &cfg.Token} {
		if flags.Changed(name) {
			*field = flagString(flags, name)
		}
	}
	if flags.Changed("allowed-host") {
		cfg.AllowedHosts, _ = flags.GetStringSlice("allowed-host")
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	// The configuration's own targets join the built-in ones.
	own, err := targets.OwnEntries(cfg.Targets, targets.DefaultCatalog().Names())
	if err != nil {
		return cfg, err
	}
	if len(own) > 0 {
		g.catalog = g.catalog.With(own...)
	}
	return cfg, nil
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
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		t.Jar, t.Dockerfile = besideFile(path, t.Jar), besideFile(path, t.Dockerfile)
		if t.Database != nil {
			t.Database.Init = besideFile(path, t.Database.Init)
		}
		for j := range t.Jars {
			t.Jars[j] = besideFile(path, t.Jars[j])
		}
	}
	return nil
}

// besideFile resolves a path a file gives against the file's directory.
func besideFile(file, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(file), p)
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
	if c.HealthTimeout < 0 {
		return bench.FieldErrorf("healthTimeout", "must not be negative, got %s", c.HealthTimeout)
	}
	if err := validToken(c.Token); err != nil {
		return err
	}
	for major, ref := range c.JavaBaseImages {
		field := fmt.Sprintf("javaBaseImages.%d", major)
		if major < minJavaMajor {
			return bench.FieldErrorf(field, "Java %d has no virtual threads; majors from %d", major, minJavaMajor)
		}
		if ref == "" || strings.ContainsAny(ref, " \t\n") {
			return bench.FieldErrorf(field, "must be an image reference, got %q", ref)
		}
	}
	for i, h := range c.AllowedHosts {
		if !httpapi.ValidHost(h) {
			return bench.FieldErrorf(fmt.Sprintf("allowedHosts[%d]", i), "must be host:port, or a host for any port, got %q", h)
		}
	}
	if err := c.validateEngines(); err != nil {
		return err
	}
	return c.Swarm.validate(c.engineNames())
}

// validateEngines checks each configured engine, that no two share a name,
// and that the default engine is one of them (or local).
func (c config) validateEngines() error {
	var names []string
	for i, e := range c.Engines {
		field := fmt.Sprintf("engines[%d]", i)
		if err := e.Validate(field); err != nil {
			return err
		}
		if slices.Contains(names, e.Name) {
			return bench.FieldErrorf(field+".name", "engine %q is configured twice", e.Name)
		}
		names = append(names, e.Name)
	}
	if names := c.engineNames(); c.DefaultEngine != "" && !slices.Contains(names, c.DefaultEngine) {
		return bench.FieldErrorf("defaultEngine", "unknown engine %q (configured: %s)", c.DefaultEngine, strings.Join(names, ", "))
	}
	return nil
}

// engineNames are the engines runs may use: the local one, then the
// configured ones.
func (c config) engineNames() []string {
	names := []string{bench.EngineLocal}
	for _, e := range c.Engines {
		names = append(names, e.Name)
	}
	return names
}

// validToken checks a token: none, or one long enough not to be guessed,
// of the characters a header carries as they are. The message never quotes it.
func validToken(token string) error {
	if token == "" {
		return nil
	}
	if len(token) < minTokenLength {
		return bench.FieldErrorf("token", "must be at least %d characters long (it has %d); openssl rand -hex 32 makes a good one", minTokenLength, len(token))
	}
	for _, c := range token {
		if c < 0x21 || c > 0x7e {
			return bench.FieldErrorf("token", "must be printable ASCII without spaces")
		}
	}
	return nil
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// newClient returns an API client for the configured daemon, with its token.
func (c config) newClient(options ...client.Option) *client.Client {
	return client.New(c.Server, append([]client.Option{client.WithToken(c.Token)}, options...)...)
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
	return targets.RuntimeOptions{RepoRoot: c.Repo, Sources: threadbench.TargetSources, Catalog: g.catalog, JavaBaseImage: c.JavaBaseImage, JavaBaseImages: c.JavaBaseImages,
		JavaToolOptions: c.JavaToolOptions, HealthTimeout: time.Duration(c.HealthTimeout)}
}

// openEngines connects to the local engine, which must answer, and to the
// configured ones, which are asked nothing until a run needs them. Each
// remote engine loads the local engine's images rather than build them
// again. history labels the containers (store.DB.HistoryID).
func (c config) openEngines(g *globalState, history string) (*targets.Engines, error) {
	opts := c.runtimeOptions(g)
	opts.History = history
	local, err := targets.NewRuntime(opts)
	if err != nil {
		return nil, err
	}
	remote := make([]*targets.Runtime, 0, len(c.Engines))
	closeAll := func() {
		local.Close()
		for _, rt := range remote {
			rt.Close()
		}
	}
	for _, e := range c.Engines {
		o := opts
		o.Engine, o.ImageSource = e, local
		rt, err := targets.NewRuntime(o)
		if err != nil {
			closeAll()
			return nil, err
		}
		remote = append(remote, rt)
	}
	engines, err := targets.NewEngines(local, remote...)
	if err != nil {
		closeAll()
		return nil, err
	}
	return engines, nil
}

// catalogEngines are the configured engines as a spec's catalog lists them.
// Their hosts' CPUs and memory are not known before a run asks the engine,
// which then refuses limits beyond them itself.
func (c config) catalogEngines() []bench.CatalogEngine {
	engines := make([]bench.CatalogEngine, len(c.Engines))
	for i, e := range c.Engines {
		engines[i] = bench.CatalogEngine{Name: e.Name}
	}
	return engines
}
