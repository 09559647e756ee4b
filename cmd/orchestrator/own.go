package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// ownFlags define a target of one's own on the command line (--jar,
// --image, --dockerfile): a transient entry of the catalog, run in each of
// its variants unless --targets says otherwise.
type ownFlags struct {
	jars              []string // one, or several builds of the service
	image, dockerfile string
	name              string
	health, metrics   string
	portEnv, bindEnv  string
	healthTimeout     time.Duration
	env, jvmFlags     []string
	variants          []string
	axes              []string
	jdks              []int
	jvm               bool   // an image or Dockerfile runs a JVM: record it with JFR
	pprof             string // where a Go service serves its CPU profile
}

func (o *ownFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.jars, "jar", nil, "your own service: an executable (Spring Boot) jar, run on the project's JRE as platform and virtual (SPRING_THREADS_VIRTUAL_ENABLED); "+
		"given twice (--jar before.jar --jar after.jar), two builds of it side by side, paired along their axis build (build=before, build=after)")
	fs.StringVar(&o.image, "image", "", "your own service: an image already on the engine")
	fs.StringVar(&o.dockerfile, "dockerfile", "", "your own service: a directory with a Dockerfile, built here (given the project's JRE as BASE_IMAGE with --jdk)")
	fs.StringVar(&o.name, "target-name", "", "with --jar/--image/--dockerfile: the target's name (default: from the file or image)")
	fs.StringVar(&o.health, "health", "", "with --jar/--image/--dockerfile: the readiness path (default /actuator/health, else the first request)")
	fs.DurationVar(&o.healthTimeout, "health-timeout", 0, "with --jar/--image/--dockerfile: how long the service may take to get ready (default "+targets.DefaultHealthTimeout.String()+")")
	fs.StringVar(&o.portEnv, "port-env", "", "with --jar/--image/--dockerfile: the environment variable that tells the service its port (default SERVER_PORT, Spring Boot's)")
	fs.StringVar(&o.bindEnv, "bind-env", "", "with --jar/--image/--dockerfile: the environment variable that tells the service its address (default SERVER_ADDRESS, Spring Boot's)")
	fs.StringVar(&o.metrics, "metrics", "", "with --jar/--image/--dockerfile: its Prometheus path (default /actuator/prometheus when it answers; none for no scraping)")
	fs.StringSliceVar(&o.env, "target-env", nil, "with --jar/--image/--dockerfile: environment of the service, NAME=VALUE (repeatable)")
	fs.StringSliceVar(&o.jvmFlags, "jvm-flag", nil, "with --jar/--image/--dockerfile: a JVM flag of the service (repeatable)")
	fs.StringArrayVar(&o.axes, "axis", nil, "with --jar/--image/--dockerfile: an axis of its own, a value's environment variable or JVM flag: "+
		"AXIS.VALUE=NAME=VALUE or AXIS.VALUE=-FLAG (repeatable: --axis pool.t200=SERVER_TOMCAT_THREADS_MAX=200 --axis pool.t400=SERVER_TOMCAT_THREADS_MAX=400)")
	fs.StringSliceVar(&o.variants, "variant", nil, "with --jar/--image/--dockerfile: the variants to run, by the values of their axes: virtual, jdk=21 (default: all; a jar's are platform and virtual)")
	fs.IntSliceVar(&o.jdks, "jdk", nil, "the Java major the Java targets run on, 21 or 25; several (21,25) run each target on each (a jar's default: what its classes need)")
	fs.BoolVar(&o.jvm, "jvm", false, "with --image/--dockerfile: the service runs on a JVM, to record with JFR as a jar is (JAVA_TOOL_OPTIONS)")
	fs.StringVar(&o.pprof, "pprof", "", "with --image/--dockerfile: where the (Go) service serves net/http/pprof's CPU profile, e.g. /debug/pprof/profile, to profile each stage")
}

// given reports whether the flags define a target.
func (o *ownFlags) given() bool { return len(o.jars) > 0 || o.image != "" || o.dockerfile != "" }

// jar is the one jar given, or the first of several builds.
func (o *ownFlags) jar() string {
	if len(o.jars) == 0 {
		return ""
	}
	return o.jars[0]
}

// apply defines the target, adds it to the command's catalog and, unless
// the spec names its targets (--targets, or fileTargets: a spec file's),
// runs each of its variants. remote is set when the run goes to a daemon,
// which takes no jar, image or Dockerfile.
func (o *ownFlags) apply(g *globalState, fs *pflag.FlagSet, spec *bench.RunSpec, fileTargets, remote bool) error {
	if err := o.checkJDKs(fs, spec); err != nil {
		return err
	}
	if err := o.applyOwn(g, fs, spec, fileTargets, remote); err != nil {
		return err
	}
	return o.eachJDK(g, spec)
}

// applyOwn defines the service of one's own the flags give, if any.
func (o *ownFlags) applyOwn(g *globalState, fs *pflag.FlagSet, spec *bench.RunSpec, fileTargets, remote bool) error {
	if !o.given() {
		for _, name := range []string{"target-name", "health", "health-timeout", "port-env", "bind-env", "metrics", "target-env", "jvm-flag", "variant", "axis", "jvm", "pprof"} {
			if fs.Changed(name) {
				return bench.FieldErrorf(name, "--%s is for a service of your own: give --jar, --image or --dockerfile", name)
			}
		}
		return nil
	}
	if spec.Experiment != nil {
		return bench.FieldErrorf(o.sourceField(), "an experiment runs the built-in targets; run your service with a profile and your own requests")
	}
	if remote {
		return bench.FieldErrorf(o.sourceField(), "a daemon runs only the targets of its configuration (targets:): run --%s locally, without --server", o.sourceField())
	}
	def, err := o.definition()
	if err != nil {
		return err
	}
	if err := def.Validate("", targets.DefaultCatalog().Names()); err != nil {
		return err
	}
	entry := def.Entry()
	g.catalog = g.catalog.With(entry)
	refs, err := o.refs(entry)
	if err != nil {
		return err
	}
	if !fs.Changed("targets") && !fileTargets {
		spec.Targets = refs
	}
	return nil
}

// sourceField names the flag that gave the service.
func (o *ownFlags) sourceField() string {
	switch {
	case len(o.jars) > 0:
		return "jar"
	case o.image != "":
		return "image"
	}
	return "dockerfile"
}

func (o *ownFlags) definition() (targets.Own, error) {
	given := 0
	for _, s := range []string{o.jar(), o.image, o.dockerfile} {
		if s != "" {
			given++
		}
	}
	if given > 1 {
		return targets.Own{}, bench.FieldErrorf(o.sourceField(), "give one of --jar, --image or --dockerfile")
	}
	def := targets.Own{Name: o.name, Jar: o.jar(), Image: o.image, Dockerfile: o.dockerfile, Health: o.health,
		HealthTimeout: bench.Duration(o.healthTimeout), Metrics: o.metrics, JVMFlags: o.jvmFlags, PortEnv: o.portEnv, BindEnv: o.bindEnv,
		JVM: o.jvm, Pprof: o.pprof,
		// The question is one property away for any Spring Boot service.
		Variants: targets.SpringVariants()}
	switch {
	case o.image != "":
	case len(o.jdks) == 1:
		def.JDK = o.jdks[0]
	case len(o.jdks) > 1:
		def.JDKs = o.jdks
	}
	if len(o.jars) > 1 {
		// Two builds or more: an axis, checked as the flag they came by.
		if err := targets.ValidateBuilds("jar", o.jars); err != nil {
			return def, err
		}
		def.Jar, def.Jars = "", o.jars
	}
	if def.Name == "" {
		def.Name = defaultOwnName(o.jar(), o.image, o.dockerfile)
	}
	axes, err := parseAxes(o.axes)
	if err != nil {
		return def, err
	}
	def.Axes = axes
	if len(o.env) > 0 {
		def.Env = map[string]string{}
		for _, kv := range o.env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return def, bench.FieldErrorf("target-env", "must be NAME=VALUE, got %q", kv)
			}
			def.Env[k] = v
		}
	}
	return def, nil
}

// refs are the variants to run: those --variant picks, else all.
func (o *ownFlags) refs(e targets.Entry) ([]string, error) {
	info := e.Info()
	if len(info.Variants) == 0 {
		if len(o.variants) > 0 {
			return nil, bench.FieldErrorf("variant", "target %s has no variants", e.Name)
		}
		return []string{e.Name}, nil
	}
	variants, err := pickVariants(info, o.variants)
	if err != nil {
		return nil, err
	}
	refs := make([]string, len(variants))
	for i, v := range variants {
		refs[i] = e.Name + "@" + v
	}
	return refs, nil
}

var (
	notNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)
	// versionSuffix is a jar name's version: "-4.0.0-SNAPSHOT", "-1.2".
	versionSuffix = regexp.MustCompile(`-\d[\w.-]*$`)
)

// defaultOwnName names a target after its jar ("orders" for
// orders-1.2.jar), image or directory.
func defaultOwnName(jar, image, dockerfile string) string {
	var base string
	switch {
	case jar != "":
		base = strings.TrimSuffix(filepath.Base(jar), ".jar")
		base = versionSuffix.ReplaceAllString(base, "")
	case image != "":
		base = image[strings.LastIndex(image, "/")+1:]
		base, _, _ = strings.Cut(base, ":")
		base, _, _ = strings.Cut(base, "@")
	default:
		abs, _ := filepath.Abs(dockerfile)
		base = filepath.Base(abs)
	}
	base = strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(base), "-"), "-._")
	if len(base) > 40 {
		base = base[:40]
	}
	if base == "" {
		base = "service"
	}
	return base
}
