package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Model is the name of a load model, as a spec and a result carry it.
type Model string

// DefaultModel is the model of a profile that names none: the one place
// "empty means open" is decided.
const DefaultModel = ModelOpen

// LoadModel is how a profile offers load. Each model is one value, in its
// own file, that owns its rules: which field of a stage sets its load and
// in what unit, how a stage is checked, and whether the load is a number of
// clients or an arrival rate. Code outside asks the model rather than
// testing its name.
type LoadModel interface {
	// Name is the model's name in a spec ("open", "closed").
	Name() Model
	// Unit names what a stage's level counts: "req/s" or "clients".
	Unit() string
	// Level is the load a stage sets, in Unit: the value a ramp moves to.
	Level(st Stage) float64
	// RateLevel says whether a stage's level is an arrival rate rather than
	// a number of clients: a capacity search steps rates, and a level that
	// is not a rate is named apart so that nobody reads it as one.
	RateLevel() bool
	// ScheduledLatency says whether a request's latency runs from when the
	// schedule had it due (coordinated omission corrected, service time
	// kept apart) rather than from when a client sent it.
	ScheduledLatency() bool
	// LittleBound says whether a stage's level is requests kept in flight,
	// so that Little's law and the pool bound its throughput and a sweep of
	// levels is a sweep of concurrency (the USL fits it).
	LittleBound() bool
	// CheckConnections checks a profile's connections setting against the
	// model (the range is checked apart).
	CheckConnections(connections int) error
	// CheckIteration checks that the model can run an iteration: a client
	// to repeat it.
	CheckIteration() error
	// CheckFixedWorkers checks that an engine whose workers are fixed for
	// an attack and that sends single requests (vegeta) can run the profile
	// and workload.
	CheckFixedWorkers(p Profile, w Workload) error
	// CheckStage checks one stage of a profile, field its JSON path, against
	// the model's rules and the guardrails.
	CheckStage(st Stage, field string, g Guardrails) error
	// ShareOf is the part of a stage one of several load generators sends
	// (Share): the shares add up to the stage.
	ShareOf(st Stage, s Share) Stage
	// CheckShare checks that a stage, field its JSON path, can be shared
	// among generators.
	CheckShare(st Stage, field string, generators int) error
}

// loadModels are the registered models by name.
var loadModels = map[Model]LoadModel{}

// registerModel makes a model known by its name; each model's file
// registers it, so that a new model is one new file.
func registerModel(m LoadModel) {
	if _, dup := loadModels[m.Name()]; dup {
		panic(fmt.Sprintf("bench: load model %q registered twice", m.Name()))
	}
	loadModels[m.Name()] = m
}

// LookupModel returns the model a profile names, DefaultModel when it names
// none; false when no model has that name.
func LookupModel(name Model) (LoadModel, bool) {
	if name == "" {
		name = DefaultModel
	}
	m, ok := loadModels[name]
	return m, ok
}

// ModelOf returns the model a checked profile or a stored result names,
// the default for none. A name no model has, which a prepared spec cannot
// carry, keeps its name and reads its stages as the default model does.
func ModelOf(name Model) LoadModel {
	if m, ok := LookupModel(name); ok {
		return m
	}
	return unknownModel{LoadModel: loadModels[DefaultModel], name: name}
}

// unknownModel is a name no model has, read as the default model.
type unknownModel struct {
	LoadModel
	name Model
}

func (m unknownModel) Name() Model { return m.name }

// ModelNames lists the models' names, the default first, then the others
// in order of name.
func ModelNames() []Model {
	names := []Model{DefaultModel}
	for name := range loadModels {
		if name != DefaultModel {
			names = append(names, name)
		}
	}
	slices.Sort(names[1:])
	return names
}

// LoadModel returns the profile's model (see ModelOf).
func (p Profile) LoadModel() LoadModel { return ModelOf(p.Model) }

// LoadModel returns the model the stage was measured under (see ModelOf).
func (s StageResult) LoadModel() LoadModel { return ModelOf(s.Model) }

// Level is the load the stage was measured at, in its model's unit.
func (s StageResult) Level() float64 {
	return s.LoadModel().Level(Stage{Rate: s.Rate, Concurrency: s.Concurrency})
}

// CheckModel checks that the profile names a model there is.
func CheckModel(p Profile) (LoadModel, error) {
	m, ok := LookupModel(p.Model)
	if !ok {
		return nil, FieldErrorf("profile.model", "must be %s, got %q", quotedOr(ModelNames()), p.Model)
	}
	return m, nil
}

// quotedOr writes names as `"a", "b" or "c"`.
func quotedOr(names []Model) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return WordsOr(quoted)
}

// WordsOr writes words as "a, b or c".
func WordsOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
