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
	Phase        string       `json:"phase,omitempty"` // building, starting, checking, warmup, attack, stopping
	Message      string       `json:"message,omitempty"`
	Stage        *StageResult `json:"stage,omitempty"`
	Second       *Bucket      `json:"second,omitempty"`
}
