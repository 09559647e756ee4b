package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
)

// builtin is a built-in profile with its stages at scale 1 and the scale it
// runs at by default.
type builtin struct {
	profile      bench.Profile
	defaultScale float64
}

// Seed k6 test: 100 -> 300 -> 500 -> 300 -> 0 over 1m, 2m, 3m, 2m, 1m.
var (
	seedTargets   = []int{100, 300, 500, 300, 0}
	seedDurations = []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 2 * time.Minute, time.Minute}
)

func heavy(ms string, weight int) bench.Request {
	return bench.Request{Endpoint: "heavy", Params: map[string]string{"duration": ms}, Weight: weight}
}

func light(weight int) bench.Request { return bench.Request{Endpoint: "light", Weight: weight} }

// seedWorkload is the seed k6 test's mix: half heavy?duration=500, half light.
func seedWorkload() *bench.Workload {
	return &bench.Workload{Requests: []bench.Request{heavy("500", 1), light(1)}}
}

func builtins() []builtin {
	return []builtin{
		{defaultScale: 1, profile: bench.Profile{
			Name:        "smoke",
			Description: "open model, 50 req/s for 10 s: a quick check that everything answers",
			Model:       bench.ModelOpen,
			Stages:      []bench.Stage{{Name: "hold", Duration: dur(10 * time.Second), Rate: 50}},
			Workload:    &bench.Workload{Requests: []bench.Request{light(1)}},
		}},
		{defaultScale: 0.1, profile: bench.Profile{
			Name:        "ramp",
			Description: "open model, the seed k6 test's shape as arrival rates: 100 -> 300 -> 500 -> 300 -> 0 req/s, linear ramps",
			Model:       bench.ModelOpen,
			Stages:      seedStages(func(st *bench.Stage, v int) { st.Rate = float64(v) }),
			Workload:    seedWorkload(),
		}},
		{defaultScale: 1, profile: bench.Profile{
			Name:        "steps",
			Description: "closed model, 16 to 512 requests in flight, doubling every 10 s",
			Model:       bench.ModelClosed,
			Stages:      steps(10*time.Second, 16, 32, 64, 128, 256, 512),
			Workload:    &bench.Workload{Requests: []bench.Request{heavy("100", 1)}},
		}},
		{defaultScale: 0.1, profile: bench.Profile{
			Name:        "seed-k6",
			Description: "closed model, the seed k6 test: 100 -> 300 -> 500 -> 300 -> 0 virtual users, linear ramps, heavy?duration=500 and light half each",
			Model:       bench.ModelClosed,
			Stages:      seedStages(func(st *bench.Stage, v int) { st.Concurrency = v }),
			Workload:    seedWorkload(),
		}},
		{defaultScale: 1, profile: bench.Profile{
			Name:        "demo-heavy",
			Description: "closed model, 50, 200, 400 requests in flight on heavy?duration=200: saturates a 200-thread Tomcat pool",
			Model:       bench.ModelClosed,
			Stages: []bench.Stage{
				{Name: "c50", Duration: dur(5 * time.Second), Concurrency: 50},
				{Name: "c200", Duration: dur(10 * time.Second), Concurrency: 200},
				{Name: "c400", Duration: dur(10 * time.Second), Concurrency: 400},
			},
			Workload: &bench.Workload{Requests: []bench.Request{heavy("200", 1)}},
		}},
	}
}

func dur(d time.Duration) bench.Duration { return bench.Duration(d) }

// seedStages returns the seed test's five ramps, setting each target value
// with set (a rate or a concurrency).
func seedStages(set func(*bench.Stage, int)) []bench.Stage {
	stages := make([]bench.Stage, len(seedTargets))
	for i, v := range seedTargets {
		stages[i] = bench.Stage{Name: fmt.Sprintf("to%d", v), Duration: dur(seedDurations[i]), Ramp: true}
		set(&stages[i], v)
	}
	return stages
}

func steps(each time.Duration, levels ...int) []bench.Stage {
	stages := make([]bench.Stage, len(levels))
	for i, c := range levels {
		stages[i] = bench.Stage{Name: fmt.Sprintf("c%d", c), Duration: dur(each), Concurrency: c}
	}
	return stages
}

// scaled returns b's profile with every stage duration multiplied by scale
// (b's default when 0), rounded to the millisecond. Maps are copied so the
// caller may change the result.
func (b builtin) scaled(scale float64) bench.Profile {
	if scale == 0 {
		scale = b.defaultScale
	}
	p := b.profile
	p.Scale = scale
	p.Stages = make([]bench.Stage, len(b.profile.Stages))
	for i, st := range b.profile.Stages {
		st.Duration = bench.Duration(time.Duration(float64(st.Duration) * scale).Round(time.Millisecond))
		p.Stages[i] = st
	}
	p.Workload = cloneWorkload(b.profile.Workload)
	return p
}

func cloneWorkload(w *bench.Workload) *bench.Workload {
	if w == nil {
		return nil
	}
	c := *w
	c.Requests = cloneRequests(w.Requests)
	return &c
}

func cloneRequests(reqs []bench.Request) []bench.Request {
	out := make([]bench.Request, len(reqs))
	for i, r := range reqs {
		out[i] = r
		if r.Params != nil {
			out[i].Params = make(map[string]string, len(r.Params))
			for k, v := range r.Params {
				out[i].Params[k] = v
			}
		}
	}
	return out
}

// Builtins returns the built-in profiles, stages scaled by each profile's
// default Scale.
func Builtins() []bench.Profile {
	bs := builtins()
	out := make([]bench.Profile, len(bs))
	for i, b := range bs {
		out[i] = b.scaled(0)
	}
	return out
}

// BuiltinNames returns the names of the built-in profiles, in the order
// Builtins lists them.
func BuiltinNames() []string {
	bs := builtins()
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.profile.Name
	}
	return names
}

// LookupProfile returns the named built-in profile with its stage durations
// multiplied by scale (0: the profile's default scale). It returns an
// ENOTFOUND *bench.Error listing the names for an unknown profile, and
// EINVALID for a negative or non-finite scale.
func LookupProfile(name string, scale float64) (bench.Profile, error) {
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return bench.Profile{}, bench.FieldErrorf("profile.scale", "must be a positive number (0 for the profile's default), got %g", scale)
	}
	for _, b := range builtins() {
		if b.profile.Name == name {
			return b.scaled(scale), nil
		}
	}
	return bench.Profile{}, bench.Errorf(bench.ENOTFOUND, "no built-in profile %q (built-in profiles: %s)",
		name, strings.Join(BuiltinNames(), ", "))
}

// ReadProfileFile reads a profile from a YAML or JSON file (by extension,
// else by content). Unknown fields are refused; errors are EINVALID
// *bench.Errors whose field is the JSON path inside the file and whose
// message names the file.
func ReadProfileFile(path string) (bench.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return bench.Profile{}, bench.Errorf(bench.EINVALID, "read profile file: %v", err)
	}
	p, err := parseProfile(b, isJSON(path, b))
	if err != nil {
		var e *bench.Error
		if errors.As(err, &e) {
			return bench.Profile{}, &bench.Error{Code: e.Code, Field: e.Field, Message: fmt.Sprintf("%s (in %s)", e.Message, path)}
		}
		return bench.Profile{}, bench.Errorf(bench.EINVALID, "profile file %s: %v", path, err)
	}
	return p, nil
}

func isJSON(path string, b []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(string(b)), "{")
}

// parseProfile reads a profile document. JSON is read by the YAML parser
// too (JSON is YAML), so both formats get the same strict field checks,
// after a syntax check by encoding/json for JSON's own error messages.
func parseProfile(b []byte, asJSON bool) (bench.Profile, error) {
	if asJSON && !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return bench.Profile{}, fmt.Errorf("not valid JSON: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return bench.Profile{}, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return bench.Profile{}, fmt.Errorf("empty profile file")
	}
	var p bench.Profile
	if err := decodeStrict(doc.Content[0], reflect.ValueOf(&p).Elem(), ""); err != nil {
		return bench.Profile{}, err
	}
	return p, nil
}

// decodeStrict decodes node into v field by field, so that an unknown field
// or a bad value is reported with its JSON path.
func decodeStrict(node *yaml.Node, v reflect.Value, path string) error {
	if node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	switch {
	case v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct:
		v.Set(reflect.New(v.Type().Elem()))
		return decodeStrict(node, v.Elem(), path)
	case v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(bench.Duration(0)):
		return decodeStruct(node, v, path)
	case v.Kind() == reflect.Slice && node.Kind == yaml.SequenceNode:
		v.Set(reflect.MakeSlice(v.Type(), len(node.Content), len(node.Content)))
		for i, item := range node.Content {
			if err := decodeStrict(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := node.Decode(v.Addr().Interface()); err != nil {
		return bench.FieldErrorf(fieldOrRoot(path), "%s", valueError(err))
	}
	return nil
}

func decodeStruct(node *yaml.Node, v reflect.Value, path string) error {
	if node.Kind != yaml.MappingNode {
		return bench.FieldErrorf(fieldOrRoot(path), "must be an object")
	}
	fields := yamlFields(v.Type())
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i].Value, node.Content[i+1]
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		idx, ok := fields[key]
		if !ok {
			return bench.FieldErrorf(sub, "unknown field (line %d); known fields: %s", node.Content[i].Line, strings.Join(sortedKeys(fields), ", "))
		}
		if err := decodeStrict(val, v.Field(idx), sub); err != nil {
			return err
		}
	}
	return nil
}

// yamlFields maps the yaml names of t's exported fields to their indexes.
func yamlFields(t reflect.Type) map[string]int {
	fields := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = i
	}
	return fields
}

func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

// valueError strips the YAML library's prefixes from a value error.
func valueError(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

func fieldOrRoot(path string) string {
	if path == "" {
		return "profile"
	}
	return path
}
