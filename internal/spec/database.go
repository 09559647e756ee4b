package spec

import (
	"fmt"
	"regexp"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkDatabase checks a spec's database server.
func checkDatabase(spec *bench.RunSpec, c bench.Catalog) error {
	if err := configuredDatabase(spec, c); err != nil {
		return err
	}
	d := spec.Database
	if d == nil {
		for i, r := range spec.Workload.Requests {
			if e, _ := bench.LookupEndpoint(r.Endpoint); e.Database {
				return bench.FieldErrorf(fmt.Sprintf("workload.requests[%d].endpoint", i), "%s reads a database: start one (--database postgres, or database: {kind: postgres})", r.Endpoint)
			}
		}
		return nil
	}
	switch d.Kind {
	case bench.DatabasePostgres, bench.DatabaseMySQL:
	default:
		return bench.FieldErrorf("database.kind", "must be one of %v, got %q", bench.DatabaseKinds, d.Kind)
	}
	if d.Pool < 0 || d.Pool > bench.MaxDatabasePool {
		return bench.FieldErrorf("database.pool", "must be from 1 to %d, got %d", bench.MaxDatabasePool, d.Pool)
	}
	if len(d.Init) > bench.MaxDatabaseInit {
		return bench.FieldErrorf("database.init", "is %d bytes, more than %d", len(d.Init), bench.MaxDatabaseInit)
	}
	for field, v := range map[string]string{"database.env.url": d.Env.URL, "database.env.username": d.Env.Username, "database.env.password": d.Env.Password, "database.env.pool": d.Env.Pool} {
		if v != "" && !envName.MatchString(v) {
			return bench.FieldErrorf(field, "%q is not an environment variable's name", v)
		}
	}
	for _, e := range spec.Engines() {
		if e != bench.EngineLocal {
			return bench.FieldErrorf("database", "the run places targets on engine %s: a database server runs on the local engine only, beside targets on it (leave engine out, or run the database elsewhere and give the service its address)", e)
		}
	}
	return prefixField(checkLimits(&bench.RunSpec{Limits: spec.DatabaseLimits(), Engine: spec.Engine}, c), "database.")
}

// configuredDatabase gives a spec that starts no database server the one
// its services of one's own are configured with (the configuration's
// targets[].database), and a spec that starts one the variable names those
// services read their datasource from, where it names none. Two services
// configured with different servers cannot share a run: it starts one.
func configuredDatabase(spec *bench.RunSpec, c bench.Catalog) error {
	var from string
	var want *bench.Database
	for _, cs := range spec.RunCases() {
		info, err := bench.LookupTarget(c.Targets, cs.Target)
		if err != nil || info.Database == nil || info.Name == from {
			continue
		}
		if want != nil && *want != *info.Database {
			return bench.FieldErrorf("targets", "%s and %s are configured with different database servers (%s, %s); a run starts one: run them apart, or give the run its database", from, info.Name, want.Kind, info.Database.Kind)
		}
		from, want = info.Name, info.Database
	}
	switch {
	case want == nil:
	case spec.Database == nil:
		spec.Database = want.Clone()
	case spec.Database.Env == bench.DatabaseEnv{}:
		spec.Database.Env = want.Env
	}
	return nil
}

// envName is what a variable's name may be.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
