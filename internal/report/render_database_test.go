package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

// The database table gives, per measured stage, the server's statements
// executing by its own timing where it keeps one (PostgreSQL), and a dash
// where it does not (MariaDB): never a 0 for a figure not read.
func TestDatabaseTableExecuting(t *testing.T) {
	active := map[string]bench.Gauge{bench.DatabaseActive: {Mean: 91, Peak: 100}}
	tr := &bench.TargetResult{
		Stages: []bench.StageResult{{Index: 0, Name: "c200"}, {Index: 1, Name: "c400"}},
		Database: []bench.DatabaseStage{{Stage: 0, Warmup: true, Executing: 40, Connections: active},
			{Stage: 0, Executing: 97.04, Connections: active}, {Stage: 1, Connections: active}},
	}
	var buf bytes.Buffer
	writeDatabaseTable(&buf, tr)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a header and the two measured stages:\n%s", len(lines), buf.String())
	}
	header := regexp.MustCompile(`DB ACTIVE +DB EXECUTING +DB IDLE`)
	if !header.MatchString(lines[0]) || !strings.Contains(lines[1], "91.0 (100.0)  97.0 ") || !strings.Contains(lines[2], "91.0 (100.0)  -  ") {
		t.Errorf("want DB EXECUTING after DB ACTIVE, 97.0 where timed and - where not:\n%s", buf.String())
	}
}
