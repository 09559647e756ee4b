package load

import (
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// Every model a spec may name has its execution here: a model registered
// in bench without its file in load would be sent as the default.
func TestEveryModelHasExecution(t *testing.T) {
	for _, name := range bench.ModelNames() {
		if _, ok := executions[name]; !ok {
			t.Errorf("load model %q has no execution in package load", name)
		}
	}
}
