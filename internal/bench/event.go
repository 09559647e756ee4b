package bench

import "time"

// EventType says what an Event reports.
type EventType string

// Event types, in the order a run produces them.
const (
	EventRun    EventType = "run"    // the run's status changed (Run set)
	EventTarget EventType = "target" // a target's phase or status changed (Target, Phase, TargetStatus)
	EventStage  EventType = "stage"  // a stage started (Stage set; Stage.Warmup for the warm-up)
	EventSecond EventType = "second" // one second of an attack finished (Second set)
)

// Event is one progress report of a run, published by the runner to its
// subscribers (the CLI's live view, the daemon's Server-Sent Events).
type Event struct {
	Type         EventType    `json:"type"`
	RunID        string       `json:"runId"`
	Time         time.Time    `json:"time"`
	RunStatus    RunStatus    `json:"runStatus,omitempty"`
	Target       string       `json:"target,omitempty"`
	TargetStatus TargetStatus `json:"targetStatus,omitempty"`
	Phase        Phase        `json:"phase,omitempty"`
	Message      string       `json:"message,omitempty"`
	Stage        *StageResult `json:"stage,omitempty"`
	Second       *Bucket      `json:"second,omitempty"`
}

// Phase is where one target of a run is in its life.
type Phase string

// Phases of a target, in order.
const (
	PhaseBuilding Phase = "building"
	PhaseStarting Phase = "starting"
	PhaseChecking Phase = "checking"
	PhaseWarmup   Phase = "warmup"
	PhaseAttack   Phase = "attack"
	PhaseStopping Phase = "stopping"
	PhaseDone     Phase = "done"
)

// Phases lists the phases in order.
var Phases = []Phase{PhaseBuilding, PhaseStarting, PhaseChecking, PhaseWarmup, PhaseAttack, PhaseStopping, PhaseDone}
