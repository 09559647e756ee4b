package bench

import (
	"fmt"
	"maps"
	"math"
	"os"
	"strings"
	"time"
)

// builtin is a built-in profile with its stages at scale 1 and the scale it
// runs at by default.
type builtin struct {
	profile      Profile
	defaultScale float64
}

// Seed k6 test: 100 -> 300 -> 500 -> 300 -> 0 over 1m, 2m, 3m, 2m, 1m.
var (
	seedTargets   = []int{100, 300, 500, 300, 0}
	seedDurations = []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute, 2 * time.Minute, time.Minute}
)

func heavy(ms string, weight int) Request {
	return Request{Endpoint: "heavy", Params: map[string]string{"duration": ms}, Weight: weight}
}

func light(weight int) Request { return Request{Endpoint: "light", Weight: weight} }

// seedWorkload is the seed k6 test's mix: half heavy?duration=500, half light.
func seedWorkload() *Workload {
	return &Workload{Requests: []Request{heavy("500", 1), light(1)}}
}

func builtins() []builtin {
	return []builtin{
		{defaultScale: 1, profile: Profile{
			Name:        "smoke",
			Description: "open model, 50 req/s for 10 s: a quick check that everything answers",
			Model:       ModelOpen,
			Stages:      []Stage{{Name: "hold", Duration: dur(10 * time.Second), Rate: 50}},
			Workload:    &Workload{Requests: []Request{light(1)}},
		}},
		{defaultScale: 0.1, profile: Profile{
			Name:        "ramp",
			Description: "open model, the seed k6 test's shape as arrival rates: 100 -> 300 -> 500 -> 300 -> 0 req/s, linear ramps",
			Model:       ModelOpen,
			Stages:      seedStages(func(st *Stage, v int) { st.Rate = float64(v) }),
			Workload:    seedWorkload(),
		}},
		{defaultScale: 1, profile: Profile{
			Name:        "steps",
			Description: "closed model, 16 to 512 requests in flight, doubling every 10 s",
			Model:       ModelClosed,
			Stages:      steps(10*time.Second, 16, 32, 64, 128, 256, 512),
			Workload:    &Workload{Requests: []Request{heavy("100", 1)}},
		}},
		{defaultScale: 0.1, profile: Profile{
			Name:        "seed-k6",
			Description: "closed model, the seed k6 test: 100 -> 300 -> 500 -> 300 -> 0 virtual users, linear ramps, heavy?duration=500 and light half each",
			Model:       ModelClosed,
			Stages:      seedStages(func(st *Stage, v int) { st.Concurrency = v }),
			Workload:    seedWorkload(),
		}},
		{defaultScale: 1, profile: Profile{
			Name:        "demo-heavy",
			Description: "closed model, 50, 200, 400 requests in flight on heavy?duration=200: saturates a 200-thread Tomcat pool",
			Model:       ModelClosed,
			Stages: []Stage{
				{Name: "c50", Duration: dur(5 * time.Second), Concurrency: 50},
				{Name: "c200", Duration: dur(10 * time.Second), Concurrency: 200},
				{Name: "c400", Duration: dur(10 * time.Second), Concurrency: 400},
			},
			Workload: &Workload{Requests: []Request{heavy("200", 1)}},
		}},
	}
}

func dur(d time.Duration) Duration { return Duration(d) }

// seedStages returns the seed test's five ramps, setting each target value
// with set (a rate or a concurrency).
func seedStages(set func(*Stage, int)) []Stage {
	stages := make([]Stage, len(seedTargets))
	for i, v := range seedTargets {
		stages[i] = Stage{Name: fmt.Sprintf("to%d", v), Duration: dur(seedDurations[i]), Ramp: true}
		set(&stages[i], v)
	}
	return stages
}

func steps(each time.Duration, levels ...int) []Stage {
	stages := make([]Stage, len(levels))
	for i, c := range levels {
		stages[i] = Stage{Name: fmt.Sprintf("c%d", c), Duration: dur(each), Concurrency: c}
	}
	return stages
}

// scaled returns b's profile with every stage duration multiplied by scale
// (b's default when 0), rounded to the millisecond. Maps are copied so the
// caller may change the result.
func (b builtin) scaled(scale float64) Profile {
	if scale == 0 {
		scale = b.defaultScale
	}
	p := b.profile
	p.Scale = scale
	p.Stages = make([]Stage, len(b.profile.Stages))
	for i, st := range b.profile.Stages {
		st.Duration = Duration(time.Duration(float64(st.Duration) * scale).Round(time.Millisecond))
		p.Stages[i] = st
	}
	p.Workload = cloneWorkload(b.profile.Workload)
	return p
}

func cloneWorkload(w *Workload) *Workload {
	if w == nil {
		return nil
	}
	c := *w
	c.Requests = cloneRequests(w.Requests)
	c.Iteration = cloneSteps(w.Iteration)
	return &c
}

func cloneSteps(steps []Step) []Step {
	if steps == nil {
		return nil
	}
	out := make([]Step, len(steps))
	for i, st := range steps {
		if st.Request != nil {
			r := cloneRequests([]Request{*st.Request})[0]
			st.Request = &r
		}
		if st.Sleep != nil {
			sl := *st.Sleep
			st.Sleep = &sl
		}
		out[i] = st
	}
	return out
}

func cloneRequests(reqs []Request) []Request {
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		out[i] = r
		if r.Params != nil {
			out[i].Params = make(map[string]string, len(r.Params))
			maps.Copy(out[i].Params, r.Params)
		}
	}
	return out
}

// Builtins returns the built-in profiles, stages scaled by each profile's
// default Scale.
func Builtins() []Profile {
	bs := builtins()
	out := make([]Profile, len(bs))
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
// ENOTFOUND *Error listing the names for an unknown profile, and
// EINVALID for a negative or non-finite scale.
func LookupProfile(name string, scale float64) (Profile, error) {
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return Profile{}, FieldErrorf("profile.scale", "must be a positive number (0 for the profile's default), got %g", scale)
	}
	for _, b := range builtins() {
		if b.profile.Name == name {
			return b.scaled(scale), nil
		}
	}
	return Profile{}, Errorf(ENOTFOUND, "no built-in profile %q (built-in profiles: %s)",
		name, strings.Join(BuiltinNames(), ", "))
}

// ReadProfileFile reads a profile from a YAML or JSON file with the strict
// decoder. Errors are EINVALID *Errors naming the field and the file.
func ReadProfileFile(path string) (Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, FieldErrorf("profile", "read profile file: %v", err)
	}
	return DecodeProfile(b, path)
}
