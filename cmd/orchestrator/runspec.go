package main

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/check"
	"github.com/threadbench/threadbench/internal/requests"
	"github.com/threadbench/threadbench/internal/spec"
)

// specFlags are the run command's flags that make up a run spec.
type specFlags struct {
	file           string
	name           string
	targets        []string
	profile        string
	scale          float64
	endpoint       string
	params         []string
	requests       []string
	targetsFile    string
	timeout        time.Duration
	warmup         time.Duration
	warmupRate     float64
	warmupMax      time.Duration
	warmupFraction float64
	cpus           float64
	memoryMiB      int64
	tomcatMax      int
	parallelism    int
	heapPercent    float64
	gc             string
	springBoot     string
	experiment     string
	part           string
	cases          []string
	repeat         int
	engine         string
	loadEngine     string
	database       string
	dbInit         string
	dbPool         int
	labels         []string
	// fileNamesTargets: the spec file gave the targets (a service of one's
	// own then does not replace them).
	fileNamesTargets bool
}

func (f *specFlags) register(fs *pflag.FlagSet, targetNames []string) {
	fs.StringVarP(&f.file, "spec", "f", "", "a run spec file (YAML or JSON); flags given as well override its fields")
	fs.StringVar(&f.name, "name", "", "a name for the run, to find it later")
	fs.StringSliceVarP(&f.targets, "targets", "t", targetNames, "targets to run, in this order (NAME or NAME@VARIANT, e.g. java-virtual@21)")
	fs.StringVarP(&f.profile, "profile", "p", "smoke", "built-in profile ("+strings.Join(builtin.ProfileNames(), ", ")+") or a profile file (YAML/JSON)")
	fs.Float64Var(&f.scale, "scale", 0, "multiply a built-in profile's stage durations, or stretch an experiment (default: the profile's or experiment's own)")
	fs.StringVar(&f.experiment, "experiment", "", "run a built-in experiment ("+strings.Join(builtin.ExperimentNames(), ", ")+"): it sets the targets, cases, profile and workload")
	fs.IntVar(&f.repeat, "repeat", 0, fmt.Sprintf("rounds of the targets, interleaved (go, java-platform, java-virtual, go, ...); each figure is then the median of the rounds with its interval (1 to %d; default 1)", bench.MaxRepeat))
	fs.StringVar(&f.part, "part", "", "with --experiment: run only this part of it (default: every part, a run each)")
	fs.StringSliceVar(&f.cases, "case", nil, "with --experiment: run only these of its cases (or targets), e.g. --case synchronized@21,synchronized@25 (default: all)")
	fs.StringVarP(&f.endpoint, "endpoint", "e", "", "endpoint every request asks ("+strings.Join(bench.EndpointNames(), ", ")+")")
	fs.StringSliceVar(&f.params, "param", nil, "query parameter of --endpoint, NAME=VALUE (repeatable)")
	fs.StringSliceVar(&f.requests, "request", nil, "a request of a weighted mix, ENDPOINT[?NAME=VALUE...][@WEIGHT], e.g. heavy?duration=500@1 (repeatable)")
	fs.StringVar(&f.targetsFile, "requests", "", "the requests of the workload from a vegeta targets file (its HTTP or JSON-lines format; the host part is replaced by each target's address; repeated lines weigh more)")
	fs.DurationVar(&f.timeout, "timeout", 0, "per-request timeout (default 30s)")
	fs.DurationVar(&f.warmup, "warmup", 0, "a fixed warm-up of this length instead of one until steady, excluded from results (at --warmup-rate)")
	fs.Bool("no-warmup", false, "skip the warm-up")
	fs.Float64Var(&f.warmupRate, "warmup-rate", 0, "a fixed warm-up at this rate in requests/s instead of one until steady (default 50, for 10s unless --warmup)")
	fs.Bool("warmup-until-steady", false, "warm each target up at the first stage's load until throughput and p50 stop trending (the default unless --warmup or --warmup-rate is given)")
	fs.DurationVar(&f.warmupMax, "warmup-max", 0, "a warm-up until steady runs at most this long (default 2m); in a capacity search, the one a JVM met cold gets before it is asked again")
	fs.Float64Var(&f.warmupFraction, "warmup-fraction", 0, "a warm-up until steady runs at this fraction of the first stage's load, above 0 and at most 1 (default 1)")
	fs.Float64Var(&f.cpus, "cpus", 0, "CPUs each target may use (default 1)")
	fs.Int64Var(&f.memoryMiB, "memory", 0, "memory limit of each target in MiB (default 1024)")
	fs.IntVar(&f.tomcatMax, "tomcat-max-threads", 0, "Java: Tomcat's max worker threads (default 200)")
	fs.IntVar(&f.parallelism, "virtual-parallelism", 0, "Java: virtual thread scheduler parallelism (default: CPUs)")
	fs.Float64Var(&f.heapPercent, "heap-percent", 0, "Java: max heap as a percentage of the memory limit (default 50)")
	fs.StringVar(&f.gc, "gc", "", "Java: garbage collector (G1, Serial, Parallel, Z; default: the JVM's choice)")
	fs.StringVar(&f.springBoot, "spring-boot", "", "Java: the Spring Boot line java-platform and java-virtual are built on, 4.1 or 3.5 (the seeds' 3.x line), where a target names none, e.g. --experiment seed-002 --spring-boot 3.5 (default 4.1)")
	fs.StringVar(&f.loadEngine, "load-engine", "", "the load engine that sends the requests: "+strings.Join(bench.LoadEngines, " (default), ")+" (vegeta's attacker; latency stamped at the actual send)")
	fs.StringVar(&f.engine, "engine", "", "the Docker engine the targets run on, by its name in the configuration's engines (default: its defaultEngine, else local)")
	fs.StringVar(&f.database, "database", "", "start a database server beside the targets ("+strings.Join(bench.DatabaseKinds, ", ")+"; MariaDB serves mysql): the targets get its connection settings (DB_*, SPRING_DATASOURCE_*)")
	fs.StringVar(&f.dbInit, "db-init", "", "with --database: an SQL file run once the server answers (default: the service's own migrations)")
	fs.IntVar(&f.dbPool, "db-pool", 0, fmt.Sprintf("with --database: connections in each target's pool (default %d, HikariCP's)", bench.DefaultDatabasePool))
	fs.StringArrayVar(&f.labels, "label", nil, "a label stored with the run, KEY=VALUE (repeatable; over the spec file's labels and the commit, branch and build a GitHub Actions or GitLab CI job sets)")
	fs.Bool("no-profile", false, "record nothing inside the targets (no JFR recording of a JVM, no CPU profile of a Go target): the report then has no why from inside them")
}

// fileTargets reports whether the spec file names the targets (set by spec).
func (f *specFlags) fileTargets() bool { return f.fileNamesTargets }

// spec builds the run spec: the file first, then the flags the user gave;
// labels also from a CI job's environment, read with getenv.
func (f *specFlags) spec(fs *pflag.FlagSet, getenv func(string) string) (bench.RunSpec, error) {
	var rs bench.RunSpec
	if f.file != "" {
		if err := readSpecFile(f.file, &rs); err != nil {
			return rs, err
		}
		f.fileNamesTargets = len(rs.Targets) > 0
	}
	if err := f.experimentRef(fs, &rs); err != nil {
		return rs, err
	}
	// An experiment sets its targets and profile: no defaults for them.
	experiment := rs.Experiment != nil
	set := func(name string, apply func()) {
		if fs.Changed(name) || (f.file == "" && name == "targets" && !experiment) {
			apply()
		}
	}
	set("name", func() { rs.Name = f.name })
	set("targets", func() { rs.Targets = joinAxes(f.targets) })
	// A profile the file gives, even an empty one, is the user's: only a
	// file without any profile takes the flag's default.
	if fs.Changed("profile") || (reflect.ValueOf(rs.Profile).IsZero() && !experiment) {
		p, err := profileArg(f.profile)
		if err != nil {
			return rs, err
		}
		rs.Profile = p
	}
	set("scale", func() {
		if experiment {
			rs.Experiment.Scale = f.scale
		} else {
			rs.Profile.Scale = f.scale
		}
	})
	if err := f.workload(fs, &rs); err != nil {
		return rs, err
	}
	set("timeout", func() { rs.Workload.Timeout = bench.Duration(f.timeout) })
	set("warmup", func() { rs.Warmup.Duration = bench.Duration(f.warmup) })
	set("warmup-rate", func() { rs.Warmup.Rate = f.warmupRate })
	set("no-warmup", func() { rs.Warmup.Disabled, _ = fs.GetBool("no-warmup") })
	set("no-profile", func() { rs.NoProfile, _ = fs.GetBool("no-profile") })
	set("warmup-until-steady", func() { rs.Warmup.UntilSteady, _ = fs.GetBool("warmup-until-steady") })
	set("warmup-max", func() { rs.Warmup.MaxDuration = bench.Duration(f.warmupMax) })
	set("warmup-fraction", func() { rs.Warmup.Fraction = f.warmupFraction })
	set("cpus", func() { rs.Limits.CPUs = f.cpus })
	set("memory", func() { rs.Limits.MemoryMiB = f.memoryMiB })
	set("tomcat-max-threads", func() { rs.Java.TomcatMaxThreads = f.tomcatMax })
	set("virtual-parallelism", func() { rs.Java.VirtualParallelism = f.parallelism })
	set("heap-percent", func() { rs.Java.HeapPercent = f.heapPercent })
	set("gc", func() { rs.Java.GC = f.gc })
	set("spring-boot", func() { rs.Java.SpringBoot = f.springBoot })
	set("repeat", func() { rs.Repeat = f.repeat })
	set("java-base-image", func() { rs.Java.BaseImage = flagString(fs, "java-base-image") })
	set("engine", func() { rs.Engine = f.engine })
	set("load-engine", func() { rs.Profile.Engine = f.loadEngine })
	if err := f.labelSpec(&rs, getenv); err != nil {
		return rs, err
	}
	return rs, f.databaseFlags(fs, &rs)
}

// labelSpec labels the spec in layers: the file's labels, then the
// commit, branch and build of the CI job the environment describes, then
// --label. Prepare checks them.
func (f *specFlags) labelSpec(rs *bench.RunSpec, getenv func(string) string) error {
	given, err := check.ParseLabels(f.labels)
	if err != nil {
		return err
	}
	labels := maps.Clone(rs.Labels)
	for _, layer := range []map[string]string{check.EnvLabels(getenv), given} {
		if len(layer) > 0 && labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, layer)
	}
	rs.Labels = labels
	return nil
}

// databaseFlags puts --database, --db-init and --db-pool into the spec,
// over a file's; the init script is read here, so that the spec carries
// the SQL itself, never a path.
func (f *specFlags) databaseFlags(fs *pflag.FlagSet, rs *bench.RunSpec) error {
	if !fs.Changed("database") && !fs.Changed("db-init") && !fs.Changed("db-pool") {
		return nil
	}
	if rs.Database == nil {
		rs.Database = &bench.Database{}
	}
	if fs.Changed("database") {
		rs.Database.Kind = f.database
	}
	if rs.Database.Kind == "" {
		return bench.FieldErrorf("database", "--db-init and --db-pool need --database (%s)", strings.Join(bench.DatabaseKinds, ", "))
	}
	if fs.Changed("db-pool") {
		rs.Database.Pool = f.dbPool
	}
	if fs.Changed("db-init") {
		b, err := os.ReadFile(f.dbInit)
		if err != nil {
			return bench.FieldErrorf("database.init", "read --db-init: %v", err)
		}
		rs.Database.Init = string(b)
	}
	return nil
}

// experimentRef puts --experiment, --part and --case into the spec, over a file's.
func (f *specFlags) experimentRef(fs *pflag.FlagSet, rs *bench.RunSpec) error {
	if fs.Changed("experiment") {
		rs.Experiment = &bench.ExperimentRef{Name: f.experiment}
	}
	if fs.Changed("part") {
		if rs.Experiment == nil {
			return bench.FieldErrorf("part", "--part picks a part of an experiment: give --experiment too")
		}
		rs.Experiment.Part = f.part
	}
	if fs.Changed("case") {
		if rs.Experiment == nil {
			return bench.FieldErrorf("case", "--case picks cases of an experiment: give --experiment too")
		}
		rs.Experiment.Cases = f.cases
	}
	return nil
}

// profileArg reads a profile file when the argument names one, else takes
// it as a built-in name (resolved when the spec is prepared).
func profileArg(arg string) (bench.Profile, error) {
	if strings.ContainsAny(arg, "/.") {
		if _, err := os.Stat(arg); err == nil {
			return spec.ReadProfileFile(arg)
		}
		return bench.Profile{}, bench.FieldErrorf("profile", "no profile file %q (and it is not a built-in: %s)", arg, strings.Join(builtin.ProfileNames(), ", "))
	}
	return bench.Profile{Name: arg}, nil
}

func (f *specFlags) workload(fs *pflag.FlagSet, rs *bench.RunSpec) error {
	if f.endpoint != "" && len(f.requests) > 0 {
		return bench.FieldErrorf("workload", "give either --endpoint (with --param) or --request, not both")
	}
	if f.targetsFile != "" {
		if f.endpoint != "" || len(f.requests) > 0 {
			return bench.FieldErrorf("workload", "give either --requests (a targets file), --endpoint or --request")
		}
		reqs, err := requests.ReadVegetaFile(f.targetsFile)
		if err != nil {
			return err
		}
		rs.Workload.Requests, rs.Workload.Iteration = reqs, nil
		return nil
	}
	if len(f.params) > 0 && f.endpoint == "" {
		return bench.FieldErrorf("workload", "--param needs --endpoint")
	}
	if f.endpoint != "" {
		params, err := parseParams(f.params)
		if err != nil {
			return err
		}
		rs.Workload.Requests = []bench.Request{{Endpoint: f.endpoint, Params: params, Weight: 1}}
	}
	if len(f.requests) == 0 {
		return nil
	}
	// Like --endpoint, --request replaces the file's requests.
	mix := make([]bench.Request, 0, len(f.requests))
	for i, s := range f.requests {
		req, err := parseRequest(s)
		if err != nil {
			return bench.FieldErrorf("workload.requests["+strconv.Itoa(i)+"]", "%v", err)
		}
		mix = append(mix, req)
	}
	rs.Workload.Requests = mix
	return nil
}

func parseParams(pairs []string) (map[string]string, error) {
	params := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, bench.FieldErrorf("workload.requests[0].params", "--param must be NAME=VALUE, got %q", p)
		}
		params[k] = v
	}
	return params, nil
}

// parseRequest reads ENDPOINT[?NAME=VALUE&...][@WEIGHT].
func parseRequest(s string) (bench.Request, error) {
	req := bench.Request{Weight: 1}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		w, err := strconv.Atoi(s[at+1:])
		if err != nil || w < 1 {
			return req, bench.Errorf(bench.EINVALID, "weight in %q must be a positive integer", s)
		}
		req.Weight, s = w, s[:at]
	}
	endpoint, query, _ := strings.Cut(s, "?")
	req.Endpoint = endpoint
	if query != "" {
		params, err := parseParams(strings.Split(query, "&"))
		if err != nil {
			return req, err
		}
		req.Params = params
	}
	return req, nil
}

// readSpecFile reads a YAML or JSON run spec with the domain's strict
// decoder, the one the daemon reads request bodies with.
func readSpecFile(path string, rs *bench.RunSpec) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return bench.FieldErrorf("spec", "read spec file: %v", err)
	}
	read, err := spec.Decode(b, path)
	if err != nil {
		return err
	}
	*rs = read
	return nil
}
