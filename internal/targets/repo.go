package targets

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// ModulePath is the Go module whose sources hold targets/go and targets/java.
const ModulePath = "github.com/threadbench/threadbench"

// RepoEnv names the environment variable that points at the repository when
// the orchestrator runs from elsewhere.
const RepoEnv = "THREADBENCH_REPO"

// FindRepoRoot returns the threadbench repository root: override when set
// (an option or $THREADBENCH_REPO), else the nearest directory at or above
// start whose go.mod declares ModulePath. The targets' sources live there.
func FindRepoRoot(start, override string) (string, error) {
	if override != "" {
		if !isRepoRoot(override) {
			return "", bench.Errorf(bench.EUNAVAILABLE, "%s is not the threadbench repository (no go.mod declaring module %s)", override, ModulePath)
		}
		return filepath.Abs(override)
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if isRepoRoot(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", bench.Errorf(bench.EUNAVAILABLE,
				"the threadbench sources were not found: no go.mod declaring module %s in %s or any parent; run from the repository or set %s", ModulePath, start, RepoEnv)
		}
		dir = parent
	}
}

// isRepoRoot reports whether dir holds a go.mod declaring ModulePath.
func isRepoRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}
