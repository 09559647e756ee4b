package builtin

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// builtinProfile is a built-in profile with its stages at scale 1 and the scale it
// runs at by default.
type builtinProfile struct {
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

func builtinProfiles() []builtinProfile {
	return []builtinProfile{
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
func (b builtinProfile) scaled(scale float64) bench.Profile {
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
	p.Workload = b.profile.Workload.Clone()
	return p
}

// Profiles returns the built-in profiles, stages scaled by each profile's
// default Scale.
func Profiles() []bench.Profile {
	bs := builtinProfiles()
	out := make([]bench.Profile, len(bs))
	for i, b := range bs {
		out[i] = b.scaled(0)
	}
	return out
}

// ProfileNames returns the names of the built-in profiles, in the order
// Profiles lists them.
func ProfileNames() []string {
	bs := builtinProfiles()
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
func LookupProfile(name string, scale float64) (bench.Profile, error) {
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return bench.Profile{}, bench.FieldErrorf("profile.scale", "must be a positive number (0 for the profile's default), got %g", scale)
	}
	for _, b := range builtinProfiles() {
		if b.profile.Name == name {
			return b.scaled(scale), nil
		}
	}
	return bench.Profile{}, bench.Errorf(bench.ENOTFOUND, "no built-in profile %q (built-in profiles: %s)",
		name, strings.Join(ProfileNames(), ", "))
}
