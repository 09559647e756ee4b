package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCapacityBadInput checks that capacity refuses a bad objective, sweep
// or budget before it opens the history or any engine, naming the flag.
func TestCapacityBadInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"NoObjective", []string{"--endpoint", "light"}, "--slo: a capacity search needs an objective"},
		// the term at fault, and what is wrong with it
		{"ObjectiveUnparseable", []string{"--slo", "p99<=250ms,p98<=1s"}, `--slo: "p98<=1s": unknown metric "p98"`},
		{"ObjectiveNoUnit", []string{"--slo", "p99<=250"}, `--slo: "p99<=250": p99 needs a positive duration`},
		{"ErrorsAboveOne", []string{"--slo", "errors<=5"}, `ratio "5" is above 1 (write 5% for a percentage)`},
		// the budget of three targets shared: 30 s each is below one trial
		{"BudgetBelowOneTrial", []string{"--targets", "go,java-platform,java-virtual", "--slo", "p99<=300ms", "--budget", "90s"},
			"--budget: shared by 3 targets, 30s is below one trial of the search (a 3s trial and 3 confirmations of 10s, with 1s pauses: 36s)"},
		// the settings are spec.Prepare's to check, named by their flag
		{"Precision", []string{"--slo", "p99<=300ms", "--precision", "1.5"}, "--precision: 1.5 is not a relative width"},
		{"PrecisionZero", []string{"--slo", "p99<=300ms", "--precision", "0"}, "--precision: 0 stands for the default in a spec: leave --precision out for it (0.02)"},
		{"ConfirmationsNegative", []string{"--slo", "p99<=300ms", "--confirmations", "-2"}, "--confirmations: -2: at least one confirmation is needed"},
		{"MustPassAboveConfirmations", []string{"--slo", "p99<=300ms", "--confirmations", "5", "--must-pass", "6"}, "--must-pass: 6 is not between 1 and the 5 confirmations (0 for the default, a majority: 3)"},
		{"MustPassZero", []string{"--slo", "p99<=300ms", "--must-pass", "0"}, "--must-pass: 0 stands for the default in a spec: leave --must-pass out for it (the pooled rule)"},
		{"GoalDurationZero", []string{"--slo", "p99<=300ms", "--goal-duration", "0s"}, "--goal-duration: 0 stands for the default in a spec: leave --goal-duration out for it (the confirmations' time, 30s)"},
		{"GoalDurationNegative", []string{"--slo", "p99<=300ms", "--goal-duration", "-30s"}, "--goal-duration: -30s: the time the objective is judged over must be positive"},
		// a target's search may take 100 s by default: a 2 h goal never fits
		{"GoalDurationAbsurd", []string{"--slo", "p99<=300ms", "--goal-duration", "2h"}, "--goal-duration: 2h0m0s is longer than the configured maximum run 1h0m0s"},
		{"GoalDurationOverBudget", []string{"--slo", "p99<=300ms", "--goal-duration", "5m"}, "--goal-duration: 5m0s is longer than a target's search may take (1m40s)"},
		{"SettleNegative", []string{"--slo", "p99<=300ms", "--settle", "-1s"}, "--settle: must not be negative, got -1s"},
		{"StartAboveMax", []string{"--slo", "p99<=300ms", "--start-rate", "500", "--max-rate", "100"}, "--start-rate: 500 req/s is not between the minimum 1 and the maximum 100"},
		{"MaxAboveGuardrail", []string{"--slo", "p99<=300ms", "--max-rate", "1e6"}, "--max-rate: 1e+06 req/s is above the configured maximum rate"},
		{"SweepTooShort", []string{"--sweep", "1,2,4,8,16"}, "--sweep: 5 distinct concurrencies: a USL fit needs at least 6"},
		{"SweepRepeats", []string{"--sweep", "1,2,4,4,8,8,16"}, "--sweep: 5 distinct concurrencies"},
		{"SweepZero", []string{"--sweep", "0,1,2,4,8,16"}, "--sweep: 0 clients"},
		{"SweepWithObjective", []string{"--sweep", "1,2,4,8,16,32", "--slo", "p99<=1s"}, "--sweep: a sweep is closed-model"},
		{"OwnProfile", []string{"--slo", "p99<=1s", "--profile", "smoke"}, "--profile: capacity makes its own profile"},
		{"UnknownTarget", []string{"--slo", "p99<=1s", "--targets", "nope"}, `targets[0]: unknown target "nope"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dbDir := filepath.Join(t.TempDir(), "history")
			args := append([]string{"capacity", "--db", filepath.Join(dbDir, "history.db")}, tt.args...)
			code, stdout, stderr := runContext(t, ctx, map[string]string{"HOME": t.TempDir()}, args...)
			wantBadInput(t, code, stdout, stderr, tt.want)
			if _, err := os.Stat(dbDir); !os.IsNotExist(err) {
				t.Errorf("history directory %s exists (err %v): the database was opened before the input was checked", dbDir, err)
			}
		})
	}
}
