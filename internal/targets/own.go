package targets

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/metrics"
)

// Own is a target of one's own, as the configuration file (targets:) or
// the CLI (--jar, --image, --dockerfile) defines it: one source, how it
// listens and says it is ready, and the variants it runs in. It becomes a
// catalog Entry like the built-ins, and takes the same path through build,
// start and check.
type Own struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	// One source: an image already on the engine, a directory with a
	// Dockerfile threadbench builds, or an executable jar it runs on the
	// project's JRE.
	Image      string `yaml:"image,omitempty"`
	Dockerfile string `yaml:"dockerfile,omitempty"`
	Jar        string `yaml:"jar,omitempty"`
	// Jars are several builds of one service, run in turn as an axis of
	// its variants (build, each valued by its jar's file name: orders,
	// orders-slower); give one as Jar.
	Jars []string `yaml:"jars,omitempty"`
	// JDK is the Java major a jar runs on (0: the one its classes need, 21
	// or 25); for a Dockerfile, the JRE base it is handed as BASE_IMAGE.
	JDK int `yaml:"jdk,omitempty"`
	// JDKs are the Java majors it runs on in turn, an axis of its
	// variants (jdks: [21, 25]: orders@virtual,jdk=21, ...).
	JDKs      []int             `yaml:"jdks,omitempty"`
	BuildArgs map[string]string `yaml:"buildArgs,omitempty"`
	// Port is a port the target always listens on; without it, PortEnv
	// (default SERVER_PORT) tells it one, and BindEnv (default
	// SERVER_ADDRESS) the address.
	Port    int    `yaml:"port,omitempty"`
	PortEnv string `yaml:"portEnv,omitempty"`
	BindEnv string `yaml:"bindEnv,omitempty"`
	// Health is the readiness path; empty means Actuator's /actuator/health,
	// or the workload's first request where that answers 404.
	Health        string         `yaml:"health,omitempty"`
	HealthTimeout bench.Duration `yaml:"healthTimeout,omitempty"`
	// Metrics is the Prometheus path; empty means Actuator's
	// /actuator/prometheus when it answers, "none" no scraping.
	Metrics  string            `yaml:"metrics,omitempty"`
	Env      map[string]string `yaml:"env,omitempty"`
	JVMFlags []string          `yaml:"jvmFlags,omitempty"`
	// ThreadModel is what the target runs requests on when it has no
	// variants (platform, virtual, goroutines), for the report's pairs.
	ThreadModel string `yaml:"threadModel,omitempty"`
	// JVM marks an image, or a Dockerfile given no jdk, as running a JVM,
	// so that it is recorded with JFR as a jar is.
	JVM bool `yaml:"jvm,omitempty"`
	// Pprof is where a Go service serves net/http/pprof's CPU profile
	// ("/debug/pprof/profile"), so that each stage is profiled.
	Pprof string `yaml:"pprof,omitempty"`
	// Variants are named sets of environment and flags, run as
	// "name@variant". A jar without any gets Spring Boot's two thread
	// models, SpringVariants.
	Variants map[string]OwnVariant `yaml:"variants,omitempty"`
	// Axes are named axes of its own beside its variants and JDKs: its
	// variants are the product of all of them.
	Axes OwnAxes `yaml:"axes,omitempty"`
	// Database is the database server the service needs (own_database.go).
	Database *OwnDatabase `yaml:"database,omitempty"`
}

// OwnVariant is one named variant of a target of one's own. In the
// configuration file it is either {threadModel, env, jvmFlags} or, for
// short, the environment alone: {SPRING_THREADS_VIRTUAL_ENABLED: "true"}.
type OwnVariant struct {
	ThreadModel string            `yaml:"threadModel,omitempty"`
	Env         map[string]string `yaml:"env,omitempty"`
	JVMFlags    []string          `yaml:"jvmFlags,omitempty"`
}

// UnmarshalYAML reads a variant in either of its forms.
func (v *OwnVariant) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.MappingNode && !slices.ContainsFunc(node.Content, func(n *yaml.Node) bool { return ownVariantKeys[n.Value] }) {
		return node.Decode(&v.Env)
	}
	type plain OwnVariant
	var p plain
	if err := node.Decode(&p); err != nil {
		return err
	}
	*v = OwnVariant(p)
	return nil
}

var ownVariantKeys = map[string]bool{"threadModel": true, "env": true, "jvmFlags": true}

// Spring Boot's switch between its two thread models (3.2 on, Java 21+).
const springVirtualEnv = "SPRING_THREADS_VIRTUAL_ENABLED"

// SpringVariants are Spring Boot's two thread models, one property apart:
// what a jar runs as unless told otherwise.
func SpringVariants() map[string]OwnVariant {
	return map[string]OwnVariant{
		bench.ThreadModelPlatform: {Env: map[string]string{springVirtualEnv: "false"}},
		bench.ThreadModelVirtual:  {Env: map[string]string{springVirtualEnv: "true"}},
	}
}

// Defaults of a target of one's own: Spring Boot's, with Actuator.
const (
	DefaultOwnPortEnv  = "SERVER_PORT"
	DefaultOwnBindEnv  = "SERVER_ADDRESS"
	ActuatorHealth     = "/actuator/health"
	ActuatorPrometheus = "/actuator/prometheus"
	// NoMetrics as Own.Metrics scrapes nothing.
	NoMetrics = "none"
)

var (
	ownName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Validate checks a definition; field is its path in messages
// ("targets[0]"). builtins are the names it may not take. Files it names
// must exist.
func (o Own) Validate(field string, builtins []string) error {
	if err := o.validateSource(field); err != nil {
		return err
	}
	switch {
	case !ownName.MatchString(o.Name):
		return bench.FieldErrorf(sub(field, "name"), "must be lower-case letters, digits, '.', '_' or '-' (at most 63), got %q", o.Name)
	case slices.Contains(builtins, o.Name):
		return bench.FieldErrorf(sub(field, "name"), "%q is a built-in target; give yours another name", o.Name)
	case o.JDK != 0 && !slices.Contains(javaVariant.Values, strconv.Itoa(o.JDK)):
		return bench.FieldErrorf(sub(field, "jdk"), "must be one of %s, got %d", strings.Join(javaVariant.Values, ", "), o.JDK)
	case o.JDK != 0 && o.Image != "":
		return bench.FieldErrorf(sub(field, "jdk"), "is for a jar or a Dockerfile; an image brings its own runtime")
	case len(o.BuildArgs) > 0 && o.Dockerfile == "":
		return bench.FieldErrorf(sub(field, "buildArgs"), "is for a Dockerfile")
	case o.Port < 0 || o.Port > 65535:
		return bench.FieldErrorf(sub(field, "port"), "must be a TCP port, got %d", o.Port)
	case o.PortEnv != "" && !envName.MatchString(o.PortEnv):
		return bench.FieldErrorf(sub(field, "portEnv"), "must be an environment variable name, got %q", o.PortEnv)
	case o.BindEnv != "" && !envName.MatchString(o.BindEnv):
		return bench.FieldErrorf(sub(field, "bindEnv"), "must be an environment variable name, got %q", o.BindEnv)
	case o.HealthTimeout < 0:
		return bench.FieldErrorf(sub(field, "healthTimeout"), "must not be negative")
	}
	if err := o.validateInside(field); err != nil {
		return err
	}
	if err := o.validateDatabase(field); err != nil {
		return err
	}
	for name, path := range map[string]string{"health": o.Health, "metrics": o.Metrics} {
		if path != "" && path != NoMetrics && (!strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\r\n#")) {
			return bench.FieldErrorf(sub(field, name), "must be a path starting with /, got %q", path)
		}
	}
	if o.Health == NoMetrics {
		return bench.FieldErrorf(sub(field, "health"), "must be a path starting with /, got %q", o.Health)
	}
	if err := checkModel(o.ThreadModel, sub(field, "threadModel")); err != nil {
		return err
	}
	if err := checkEnv(o.Env, sub(field, "env")); err != nil {
		return err
	}
	for name, v := range o.Variants {
		vf := sub(field, "variants."+name)
		if !ownName.MatchString(name) {
			return bench.FieldErrorf(vf, "a variant's name must be lower-case letters, digits, '.', '_' or '-'")
		}
		if err := checkModel(v.ThreadModel, vf+".threadModel"); err != nil {
			return err
		}
		if err := checkEnv(v.Env, vf+".env"); err != nil {
			return err
		}
	}
	return o.validateAxes(field)
}

// validateSource checks that exactly one source is given, and that a jar
// or a Dockerfile is there.
func (o Own) validateSource(field string) error {
	given := 0
	for _, s := range []string{o.Image, o.Dockerfile, o.Jar, strings.Join(o.Jars, ",")} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return bench.FieldErrorf(sub(field, "jar"), "target %q needs exactly one of image, dockerfile, jar or jars (it has %d)", o.Name, given)
	}
	switch {
	case o.Image != "" && strings.ContainsAny(o.Image, " \t\r\n"):
		return bench.FieldErrorf(sub(field, "image"), "must be an image reference, got %q", o.Image)
	case o.Jar != "":
		return checkJarFile(sub(field, "jar"), o.Jar)
	case len(o.Jars) > 0:
		return ValidateBuilds(sub(field, "jars"), o.Jars)
	case o.Dockerfile != "":
		if _, err := os.Stat(filepath.Join(o.Dockerfile, "Dockerfile")); err != nil {
			return bench.FieldErrorf(sub(field, "dockerfile"), "no Dockerfile in directory %s", o.Dockerfile)
		}
	}
	return nil
}

// validateInside checks what says how the target is recorded.
func (o Own) validateInside(field string) error {
	switch {
	case o.JVM && o.jar() != "":
		return bench.FieldErrorf(sub(field, "jvm"), "is for an image or a Dockerfile; a jar always runs on a JVM")
	case o.JVM && o.Pprof != "":
		return bench.FieldErrorf(sub(field, "pprof"), "is for a Go service; this one is marked jvm")
	case o.Pprof != "" && (!strings.HasPrefix(o.Pprof, "/") || strings.ContainsAny(o.Pprof, " \t\r\n#?")):
		return bench.FieldErrorf(sub(field, "pprof"), "must be a path starting with /, got %q", o.Pprof)
	case o.Pprof != "" && o.jar() != "":
		return bench.FieldErrorf(sub(field, "pprof"), "is for a Go service; a jar is recorded with JFR")
	}
	return nil
}

// sub is the path of a field's member: "targets[0].jar", or "jar" at
// the top (the CLI's flags).
func sub(field, member string) string {
	if field == "" {
		return member
	}
	return field + "." + member
}

func checkModel(model, field string) error {
	if model == "" || slices.Contains([]string{bench.ThreadModelPlatform, bench.ThreadModelVirtual, bench.ThreadModelGoroutines}, model) {
		return nil
	}
	return bench.FieldErrorf(field, "must be %s, %s or %s, got %q", bench.ThreadModelPlatform, bench.ThreadModelVirtual, bench.ThreadModelGoroutines, model)
}

func checkEnv(env map[string]string, field string) error {
	for k, v := range env {
		if !envName.MatchString(k) {
			return bench.FieldErrorf(field, "bad environment variable name %q", k)
		}
		if strings.ContainsAny(v, "\x00") {
			return bench.FieldErrorf(sub(field, k), "must not contain NUL")
		}
	}
	return nil
}

// Entry returns the catalog entry of the definition, defaults applied.
// Paths are made absolute, so that a daemon started elsewhere finds them.
func (o Own) Entry() Entry {
	e := Entry{
		Name:        o.Name,
		ThreadModel: o.ThreadModel,
		Description: o.description(),
		Recipe:      o.recipe(),
		Repository:  "threadbench/own-" + o.Name,
		HealthPath:  o.Health,
		MetricsPath: o.Metrics,
		Env:         cloneEnv(o.Env),
		JVMFlags:    slices.Clone(o.JVMFlags),
		Threads:     actuatorThreads,
		Memory:      actuatorMemory,
		Own:         true,
		JVM:         o.JVM,
		PprofPath:   o.Pprof,
		OwnPrefix:   o.ownPrefix(),
		Listening: Listening{Port: o.Port, PortEnv: o.PortEnv, BindEnv: o.BindEnv,
			HealthTimeout: time.Duration(o.HealthTimeout)},
	}
	if e.HealthPath == "" {
		e.HealthPath, e.Listening.HealthFallback = ActuatorHealth, true
	}
	switch e.MetricsPath {
	case "":
		e.MetricsPath, e.Listening.MetricsOptional = ActuatorPrometheus, true
	case NoMetrics:
		e.MetricsPath = ""
	}
	if e.Listening.Port == 0 && e.Listening.PortEnv == "" {
		e.Listening.PortEnv = DefaultOwnPortEnv
	}
	if e.Listening.BindEnv == "" && e.Listening.Port == 0 {
		e.Listening.BindEnv = DefaultOwnBindEnv
	}
	if axes := o.axes(); len(axes) > 0 {
		e.Axes = axes
		e.Variant, e.Variations = o.variations(axes)
	}
	return e
}

// ownPrefix is how the service's own frames start: the package of a jar's
// main class, the main package of a Go service; empty where not known.
func (o Own) ownPrefix() string {
	switch {
	case o.jar() != "":
		return JarPackage(o.jar())
	case o.Pprof != "":
		return "main."
	}
	return ""
}

// description says where the target comes from, and the database it
// needs.
func (o Own) description() string {
	if o.Description != "" {
		return o.Description
	}
	if o.Database != nil {
		return o.source() + ", with its " + o.Database.Kind + " database"
	}
	return o.source()
}

// source says where the target comes from.
func (o Own) source() string {
	switch {
	case len(o.Jars) > 0:
		return "your own jars " + strings.Join(o.builds(), ", ")
	case o.Jar != "":
		return "your own jar " + filepath.Base(o.Jar)
	case o.Dockerfile != "":
		return "your own Dockerfile in " + o.Dockerfile
	}
	return "your own image " + o.Image
}

// recipe builds the source; with several JDKs, on the first unless a
// variant names another.
func (o Own) recipe() Recipe {
	major := o.major()
	switch {
	case o.jar() != "":
		return JarFile{Path: absPath(o.jar()), JDK: major}
	case o.Dockerfile != "":
		return DockerfileDir{Dir: absPath(o.Dockerfile), JDK: major, BuildArgs: maps.Clone(o.BuildArgs)}
	}
	return ImageRef{Ref: o.Image}
}

// major is the Java major the source is built on unless a variant names
// another: its one, or the first of several (0: the one its classes need).
func (o Own) major() int {
	if len(o.JDKs) > 0 {
		return o.JDKs[0]
	}
	return o.JDK
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// variantOrder sorts platform before virtual before the rest.
func variantOrder(name string) string {
	switch name {
	case bench.ThreadModelPlatform:
		return "0"
	case bench.ThreadModelVirtual:
		return "1"
	}
	return "2" + name
}

func modelOfVariant(name string, env map[string]string) string {
	if checkModel(name, "") == nil {
		return name
	}
	switch strings.ToLower(env[springVirtualEnv]) {
	case "true":
		return bench.ThreadModelVirtual
	case "false":
		return bench.ThreadModelPlatform
	}
	return ""
}

// Series a Spring Boot application with Actuator and Micrometer's
// Prometheus registry exposes, read as the thread and memory figures.
var (
	actuatorThreads        = metrics.ActuatorThreads
	actuatorVirtualThreads = metrics.ActuatorVirtualThreads
	actuatorMemory         = metrics.ActuatorMemory
)

// OwnEntries returns the entries of definitions, checked (field "targets").
func OwnEntries(defs []Own, builtins []string) ([]Entry, error) {
	seen := map[string]bool{}
	entries := make([]Entry, 0, len(defs))
	for i, d := range defs {
		field := fmt.Sprintf("targets[%d]", i)
		if err := d.Validate(field, builtins); err != nil {
			return nil, err
		}
		if seen[d.Name] {
			return nil, bench.FieldErrorf(sub(field, "name"), "target %q is defined twice", d.Name)
		}
		seen[d.Name] = true
		e := d.Entry()
		db, err := d.database(field)
		if err != nil {
			return nil, err
		}
		e.Database = db
		entries = append(entries, e)
	}
	return entries, nil
}
