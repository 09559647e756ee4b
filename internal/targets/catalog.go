package targets

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// HealthPath is the readiness endpoint every target serves (targets/CONTRACT.md).
const HealthPath = "/health"

// Variant is a dimension a target may vary along, e.g. the JDK it runs on:
// a spec picks a value with "name@value".
type Variant struct {
	Name    string   // "jdk"
	Values  []string // "25", "21"
	Default string   // what a plain name runs
}

// Entry is one target of the catalog: everything about it in one place.
// Adding a target is adding an Entry (and its source directory, which must
// serve targets/CONTRACT.md, and its contract tests).
type Entry struct {
	Name        string
	ThreadModel string // one of bench.ThreadModels
	Description string
	// Source is the directory, relative to the repository root, the image
	// is built from; Recipe says how, and how the target is launched.
	Source string
	Recipe Recipe
	// Repository is the image repository; the tag is a hash of the inputs,
	// so entries built from the same inputs share an image.
	Repository  string
	MetricsPath string
	HealthPath  string
	// MetricsPortEnv names the environment variable that moves the
	// metrics exposition to a port of its own, served apart from the load
	// (Java: METRICS_PORT, a management server on platform threads, which
	// a pinned carrier or a full pool cannot hold up); empty when the
	// target serves its metrics on its one port.
	MetricsPortEnv string
	// Env is the environment the target always starts with, on top of the
	// contract's (PORT, BIND_ADDR, TARGET_NAME) and the recipe's.
	Env     map[string]string
	Variant Variant
	// Threads and Memory map the target's own series onto the generic
	// resource figures, first series with data first.
	Threads []bench.FigureSource
	Memory  []bench.FigureSource
	// JVMFlags are added to the JVM flags of a Java recipe (a target of
	// one's own, and its variant's).
	JVMFlags []string
	// Own marks a target of the user's own (Own, --jar): it serves no
	// contract, so readiness and a pre-check of the workload's requests
	// stand for the contract check, and it has no /info.
	Own bool
	// Listening, for an Own target: where it is told its port and address.
	Listening Listening
	// Variations are what each variant value changes besides the build:
	// the thread model, environment and figures (an Own target's
	// platform and virtual); nil when a variant changes only the build.
	Variations map[string]Variation
	// Axes are the dimensions whose product Variant's values are, in the
	// order a variant's name writes them; empty when Variant is the one.
	Axes []Variant
	// AxisValues are, once Resolve picked a variant, its value of each
	// axis, recorded with its results ("axis.jdk": "21").
	AxisValues map[string]string
	// JVM marks an entry whose recipe does not say it runs a JVM (an
	// image, a Dockerfile given no JDK) as running one: it is recorded
	// with JFR as the Java recipes' are (RunsJVM).
	JVM bool
	// PprofPath is where the target serves net/http/pprof's CPU profile
	// ("/debug/pprof/profile"); empty when it does not.
	PprofPath string
	// OwnPrefix starts the names of the service's own frames in its stacks
	// ("io.threadbench.", a Go module path), so that a diagnosis finds its
	// code below the libraries'; empty when not known.
	OwnPrefix string
	// OnlyNamed leaves the entry out of a run's default targets: it runs
	// when named (java-reactive, the stack the seeds moved away from, is a
	// reference beside the three thread models a run compares).
	OnlyNamed bool
	// Database, for an Own target: the database server the service needs,
	// from the configuration; a run naming the target that starts none
	// starts this one.
	Database *bench.Database
}

// Listening says how a target of one's own is told where to listen and
// how it says it is ready.
type Listening struct {
	// Port is the port it always listens on; 0 means it takes one from
	// PortEnv (SERVER_PORT).
	Port    int
	PortEnv string
	// BindEnv names the variable that sets its address (SERVER_ADDRESS).
	BindEnv string
	// HealthFallback: when HealthPath answers 404 (an application without
	// Actuator), the workload's first request stands for readiness.
	HealthFallback bool
	// MetricsOptional: MetricsPath is scraped only if it answers once the
	// target is ready (Actuator's Prometheus endpoint, when the app has it).
	MetricsOptional bool
	// HealthTimeout bounds the wait for readiness; 0 means the default.
	HealthTimeout time.Duration
}

// Variation is what one variant of an entry changes when it starts.
type Variation struct {
	ThreadModel string
	Env         map[string]string
	JVMFlags    []string
	// Threads replaces the entry's figure sources when set: what counts as
	// a virtual thread depends on the thread model.
	Threads []bench.FigureSource
	// JDK is the Java major the variant is built on, 0 for the recipe's.
	JDK int
	// Recipe replaces the entry's when set: the build the variant runs
	// (one of several jars).
	Recipe Recipe
	// Axes are the variant's value of each axis.
	Axes map[string]string
}

// Resolve returns the entry as a reference to it ("name@variant") runs:
// its variant's Variation applied.
func (e Entry) Resolve(target string) Entry { return e.resolve(target, 0) }

// resolve is Resolve under a run-wide JDK (0: none).
func (e Entry) resolve(target string, jdk int) Entry {
	variant := e.variant(bench.ParseTargetRef(target), jdk)
	info := e.Info()
	if values, err := info.ParseVariant(variant, ""); err == nil && len(values) > 0 {
		e.AxisValues = values
	}
	v, ok := e.Variations[variant]
	if !ok {
		return e
	}
	if v.ThreadModel != "" {
		e.ThreadModel = v.ThreadModel
	}
	if v.Recipe != nil {
		e.Recipe = v.Recipe
	}
	env := cloneEnv(e.Env)
	maps.Copy(env, v.Env)
	e.Env = env
	if v.Threads != nil {
		e.Threads = v.Threads
	}
	e.JVMFlags = append(slices.Clone(e.JVMFlags), v.JVMFlags...)
	return e
}

// Info returns the entry as the API, the CLI and the spec checks see it.
// An entry whose variants run in different thread models lists theirs.
func (e Entry) Info() bench.TargetInfo {
	model := e.ThreadModel
	if model == "" {
		var models []string
		for _, v := range e.Variant.Values {
			if m := e.Variations[v].ThreadModel; m != "" && !slices.Contains(models, m) {
				models = append(models, m)
			}
		}
		model = strings.Join(models, ", ")
	}
	info := bench.TargetInfo{
		Name:           e.Name,
		Kind:           e.Recipe.Runtime(),
		ThreadModel:    model,
		MetricsPath:    e.MetricsPath,
		Description:    e.Description,
		Variant:        e.Variant.Name,
		Variants:       slices.Clone(e.Variant.Values),
		DefaultVariant: e.Variant.Default,
		Axes:           benchAxes(e.Axes),
		Threads:        slices.Clone(e.Threads),
		Memory:         slices.Clone(e.Memory),
		Own:            e.Own,
		OnlyNamed:      e.OnlyNamed,
		Database:       e.Database.Clone(),
	}
	info.Axes = info.AxesOf()
	return info
}

// variant returns the variant a reference runs, as the catalog names it:
// each axis at the value the reference gives, else the run-wide JDK for
// the JDK axis, else its default.
func (e Entry) variant(ref bench.TargetRef, jdk int) string {
	ref.Name = e.Name
	return bench.ParseTargetRef(bench.CanonicalRef([]bench.TargetInfo{e.Info()}, ref.String(), jdk)).Variant
}

// Catalog is the targets a runtime can build and start.
type Catalog struct {
	entries []Entry
}

// NewCatalog returns a catalog of entries, in the order runs default to.
func NewCatalog(entries ...Entry) *Catalog {
	return &Catalog{entries: slices.Clone(entries)}
}

// With returns a copy of the catalog with more entries; an entry with the
// name of an existing one replaces it.
func (c *Catalog) With(entries ...Entry) *Catalog {
	out := NewCatalog(c.entries...)
	for _, e := range entries {
		if i := slices.IndexFunc(out.entries, func(x Entry) bool { return x.Name == e.Name }); i >= 0 {
			out.entries[i] = e
		} else {
			out.entries = append(out.entries, e)
		}
	}
	return out
}

// Entries returns the catalog in its default order.
func (c *Catalog) Entries() []Entry { return slices.Clone(c.entries) }

// Names returns the target names in catalog order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.entries))
	for i, e := range c.entries {
		names[i] = e.Name
	}
	return names
}

// DefaultNames returns the targets a run runs when it names none, in
// catalog order: every entry but those that run only when named.
func (c *Catalog) DefaultNames() []string {
	var names []string
	for _, e := range c.entries {
		if !e.OnlyNamed {
			names = append(names, e.Name)
		}
	}
	return names
}

// Infos returns every entry as bench.TargetInfo, in catalog order.
func (c *Catalog) Infos() []bench.TargetInfo {
	infos := make([]bench.TargetInfo, len(c.entries))
	for i, e := range c.entries {
		infos[i] = e.Info()
	}
	return infos
}

// Unbuildable returns, by target name, what this host lacks to build each
// target it cannot build (nothing for one it can); a daemon says so at
// start, and Prepare refuses those targets (bench.TargetInfo.Unavailable).
func (c *Catalog) Unbuildable() map[string]string {
	out := map[string]string{}
	for _, e := range c.entries {
		if why := e.Recipe.missing(); why != "" {
			out[e.Name] = why
		}
	}
	return out
}

// Lookup returns the entry a reference ("name" or "name@variant") names,
// or an ENOTFOUND *bench.Error listing the valid names.
func (c *Catalog) Lookup(ref string) (Entry, error) {
	info, err := bench.LookupTarget(c.Infos(), ref)
	if err != nil {
		return Entry{}, err
	}
	i := slices.IndexFunc(c.entries, func(e Entry) bool { return e.Name == info.Name })
	return c.entries[i], nil
}

// Series the built-in targets' figures are read from.
var (
	javaThreads = metrics.JavaThreads
	javaMemory  = metrics.JavaMemory
	goThreads   = metrics.GoThreadSources
	goMemory    = metrics.GoMemory
)

// javaVariant is the JDKs the Java targets run on.
var javaVariant = Variant{Name: "jdk", Values: []string{"25", "21"}, Default: "25"}

// springBootAxis is the Spring Boot lines the servlet Java targets are
// built on: 4.1 (targets/java/pom.xml) and 3.5, the 3.x line the seeds
// ran (targets/java/boot3/pom.xml, the same sources). The reactive model
// is built on 4.1 only.
var springBootAxis = Variant{Name: bench.AxisSpringBoot, Values: []string{"4.1", "3.5"}, Default: "4.1"}

// springBootRecipes build the jar of each Spring Boot line.
var springBootRecipes = map[string]Recipe{
	"4.1": javaRecipe,
	"3.5": MavenJar{Jar: "boot3/target/threadbench-java.jar", ThreadModelEnv: javaRecipe.ThreadModelEnv, POM: "boot3/pom.xml"},
}

// withSpringBoot gives a Java entry its two axes, the JDK and the Spring
// Boot line: a variant per pair ("25,boot=4.1"), each built on its JDK by
// its line's recipe. A reference that names neither runs the defaults,
// JDK 25 and Spring Boot 4.1.
func withSpringBoot(e Entry) Entry {
	e.Axes = []Variant{javaVariant, springBootAxis}
	e.Variant, e.Variations = productVariations(javaVariant.Name, e.Axes, func(values map[string]string) Variation {
		major, _ := strconv.Atoi(values[bench.AxisJDK])
		return Variation{JDK: major, Recipe: springBootRecipes[values[bench.AxisSpringBoot]], Axes: values}
	})
	return e
}

// GoEntry is the Go target; the starting point for Go entries of one's own.
func GoEntry() Entry {
	return Entry{
		Name:        bench.TargetGo,
		ThreadModel: bench.ThreadModelGoroutines,
		Description: "Go net/http server, one goroutine per request",
		Source:      "targets/go",
		Recipe:      GoBinary{},
		Repository:  "threadbench/go",
		MetricsPath: "/metrics",
		HealthPath:  HealthPath,
		Threads:     goThreads,
		Memory:      goMemory,
		PprofPath:   "/debug/pprof/profile",
		OwnPrefix:   "github.com/threadbench/threadbench/targets/go/",
	}
}

// javaRecipe builds targets/java: the jar Maven leaves, and the variable
// that tells it its thread model (targets/CONTRACT.md).
var javaRecipe = MavenJar{Jar: "target/threadbench-java.jar", ThreadModelEnv: "THREAD_MODEL"}

// javaEntry is one thread model of the Spring Boot target: both models run
// the same image and differ only in the recipe's ThreadModelEnv.
func javaEntry(name, model, description string) Entry {
	return Entry{
		Name:           name,
		ThreadModel:    model,
		Description:    description,
		Source:         "targets/java",
		Recipe:         javaRecipe,
		Repository:     "threadbench/java",
		MetricsPath:    "/actuator/prometheus",
		HealthPath:     HealthPath,
		MetricsPortEnv: "METRICS_PORT",
		Env:            map[string]string{javaRecipe.ThreadModelEnv: model},
		Variant:        javaVariant,
		Threads:        javaThreads,
		Memory:         javaMemory,
		OwnPrefix:      "io.threadbench.",
	}
}

// DefaultCatalog is the built-in targets, in the order runs default to.
func DefaultCatalog() *Catalog {
	return NewCatalog(
		GoEntry(),
		withSpringBoot(javaEntry(bench.TargetJavaPlatform, bench.ThreadModelPlatform, "Spring Boot on Tomcat, a bounded pool of platform threads")),
		withSpringBoot(javaEntry(bench.TargetJavaVirtual, bench.ThreadModelVirtual, "the same Spring Boot jar, one virtual thread per request")),
		reactiveEntry(),
	)
}

// reactiveEntry is the Spring Boot jar on WebFlux: run when named.
func reactiveEntry() Entry {
	e := javaEntry(bench.TargetJavaReactive, bench.ThreadModelReactive, "the same jar on Spring WebFlux and Reactor Netty: a few event-loop threads, waits hold none, blocking work on Reactor's bounded elastic pool (run when named)")
	e.OnlyNamed = true
	return e
}

// cloneEnv copies an environment so callers can change theirs.
func cloneEnv(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	maps.Copy(out, env)
	return out
}
