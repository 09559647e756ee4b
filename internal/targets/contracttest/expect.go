package contracttest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// expectation is what the contract asks of a target of one thread model.
type expectation struct {
	// handler is the thread kind its in-flight requests are labelled with.
	handler string
	// virtual is the "virtual" field its responses carry; nil: absent (Go).
	virtual *bool
	// knobs are the knobs its /info reports.
	knobs []string
	// javaFamilies: its metrics have the pinning and carrier families.
	javaFamilies bool
}

// expectations are the contract's, by the thread model a target declares.
var expectations = map[string]expectation{
	bench.ThreadModelGoroutines: {handler: bench.ThreadGoroutine, knobs: goKnobs},
	bench.ThreadModelPlatform:   {handler: bench.ThreadPlatform, virtual: new(false), knobs: javaKnobs, javaFamilies: true},
	bench.ThreadModelVirtual:    {handler: bench.ThreadVirtual, virtual: new(true), knobs: javaKnobs, javaFamilies: true},
	// WebFlux's handlers run on event-loop (and Reactor's) platform threads.
	bench.ThreadModelReactive: {handler: bench.ThreadPlatform, virtual: new(false), knobs: reactiveKnobs, javaFamilies: true},
}

// checkThreadModel says when Options name a thread model the contract has
// no expectations of.
func checkThreadModel(model string) error {
	if _, ok := expectations[model]; ok {
		return nil
	}
	known := slices.Sorted(maps.Keys(expectations))
	return fmt.Errorf("thread model %q has no contract expectations (known: %s)", model, strings.Join(known, ", "))
}

// expect is what the contract asks of the target under test.
func (c *checker) expect() expectation { return expectations[c.opts.ThreadModel] }
