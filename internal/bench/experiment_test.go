package bench_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// A stored run's spec reads back with its experiment, by encoding/json.
func TestExperimentRefJSON(t *testing.T) {
	for doc, want := range map[string]bench.ExperimentRef{
		`"seed-002"`: {Name: "seed-002"},
		`{"name": "seed-001", "scale": 0.5, "part": "callee-400"}`: {Name: "seed-001", Scale: 0.5, Part: "callee-400"},
		`{"name": "seed-003", "cases": ["native@21"]}`:             {Name: "seed-003", Cases: []string{"native@21"}},
	} {
		var got bench.ExperimentRef
		if err := json.Unmarshal([]byte(doc), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; want %+v", doc, got, err, want)
		}
	}
}
