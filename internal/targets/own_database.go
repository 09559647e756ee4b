package targets

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// OwnDatabase is the database server a service of one's own needs, as the
// configuration gives it (targets[].database): a run naming the service
// that starts none starts this one, and the service's datasource comes from
// it. Init is a file of SQL, relative to the configuration file.
type OwnDatabase struct {
	Kind string            `yaml:"kind"`
	Init string            `yaml:"init,omitempty"`
	Pool int               `yaml:"pool,omitempty"`
	Env  bench.DatabaseEnv `yaml:"env,omitempty"`
}

// validateDatabase checks the service's database, its init file included.
func (o Own) validateDatabase(field string) error {
	d := o.Database
	if d == nil {
		return nil
	}
	field = sub(field, "database")
	switch {
	case !slices.Contains(bench.DatabaseKinds, d.Kind):
		return bench.FieldErrorf(sub(field, "kind"), "must be one of %s, got %q", strings.Join(bench.DatabaseKinds, ", "), d.Kind)
	case d.Pool < 0 || d.Pool > bench.MaxDatabasePool:
		return bench.FieldErrorf(sub(field, "pool"), "must be from 1 to %d, got %d", bench.MaxDatabasePool, d.Pool)
	}
	for name, v := range map[string]string{"url": d.Env.URL, "username": d.Env.Username, "password": d.Env.Password, "pool": d.Env.Pool} {
		if v != "" && !envName.MatchString(v) {
			return bench.FieldErrorf(sub(field, "env."+name), "%q is not an environment variable's name", v)
		}
	}
	if d.Init == "" {
		return nil
	}
	fi, err := os.Stat(d.Init)
	switch {
	case err != nil:
		return bench.FieldErrorf(sub(field, "init"), "read the init script: %v", err)
	case !fi.Mode().IsRegular():
		return bench.FieldErrorf(sub(field, "init"), "%s is not a file of SQL", d.Init)
	case fi.Size() > bench.MaxDatabaseInit:
		return bench.FieldErrorf(sub(field, "init"), "%s is %d bytes, more than %d", d.Init, fi.Size(), bench.MaxDatabaseInit)
	}
	return nil
}

// database reads the service's database as a run starts it: its init
// script's SQL read from its file.
func (o Own) database(field string) (*bench.Database, error) {
	d := o.Database
	if d == nil {
		return nil, nil
	}
	db := &bench.Database{Kind: d.Kind, Pool: d.Pool, Env: d.Env}
	if d.Init != "" {
		b, err := os.ReadFile(d.Init)
		if err != nil {
			return nil, bench.FieldErrorf(fmt.Sprintf("%s.database.init", field), "read the init script: %v", err)
		}
		db.Init = string(b)
	}
	return db, nil
}
