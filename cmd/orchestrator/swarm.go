package main

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/swarm"
	"github.com/threadbench/threadbench/internal/targets"
)

// swarmConfig names a Docker swarm whose nodes labelled for load send
// each attack together, in place of this process: the daemon's operator
// opts in here, never a caller of its API.
type swarmConfig struct {
	// Manager is the engine, by name (local or one of engines:), of a
	// manager node of the swarm.
	Manager string `yaml:"manager"`
	// Generators is how many generators send each attack, one per node
	// labelled Label=true.
	Generators int `yaml:"generators"`
	// Port is where each generator listens on its node (swarm.DefaultPort).
	Port int `yaml:"port"`
	// Label is the node label that places generators (swarm.DefaultLabel).
	Label string `yaml:"label"`
}

// maxGenerators bounds a swarm's generators: well past any swarm this
// was measured on, far below a typo's.
const maxGenerators = 64

// labelPattern is what a node label's key may be.
var labelPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$`)

// validate checks the swarm's configuration against the engines there are.
func (s *swarmConfig) validate(engines []string) error {
	if s == nil {
		return nil
	}
	switch {
	case !slices.Contains(engines, s.Manager):
		return bench.FieldErrorf("swarm.manager", "must be an engine of this configuration (%s) that is a manager of the swarm, got %q", strings.Join(engines, ", "), s.Manager)
	case s.Generators < 1 || s.Generators > maxGenerators:
		return bench.FieldErrorf("swarm.generators", "must be from 1 to %d, got %d", maxGenerators, s.Generators)
	case s.Port < 0 || s.Port > 65535:
		return bench.FieldErrorf("swarm.port", "must be a TCP port, got %d", s.Port)
	case s.Label != "" && !labelPattern.MatchString(s.Label):
		return bench.FieldErrorf("swarm.label", "must be a node label's key such as %q, got %q", swarm.DefaultLabel, s.Label)
	}
	return nil
}

// generators is how many generators send each attack: 0 without a swarm.
func (s *swarmConfig) generators() int {
	if s == nil {
		return 0
	}
	return s.Generators
}

// newSwarmAttacker sends attacks from the swarm's generators, whose image
// is made of this binary; history labels their services.
func newSwarmAttacker(s *swarmConfig, engines *targets.Engines, history string, log io.Writer, logger *slog.Logger) (bench.Attacker, error) {
	manager, err := engines.Runtime(s.Manager)
	if err != nil {
		return nil, err
	}
	binary, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this binary for the generators' image: %w", err)
	}
	fleet := swarm.NewService(swarm.ServiceConfig{Manager: manager, Engines: engines.All(), Port: cmp.Or(s.Port, swarm.DefaultPort),
		Label: cmp.Or(s.Label, swarm.DefaultLabel), Binary: binary, History: history, Log: log})
	return swarm.NewAttacker(swarm.Config{Fleet: fleet, Generators: s.Generators, Log: logger}), nil
}
