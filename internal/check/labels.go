package check

import "github.com/threadbench/threadbench/internal/spec"

// FieldLabel is the flag a label is given by, which its errors name.
const FieldLabel = "--label"

// The labels a CI job's environment gives a run.
const (
	LabelCommit = "commit"
	LabelBranch = "branch"
	LabelBuild  = "build"
)

// ciVariables are, per label, the environment variables it is read from,
// the first one set winning: GitHub Actions' (a pull request's branch is
// GITHUB_HEAD_REF; GITHUB_REF_NAME is then "42/merge"), then GitLab CI's.
var ciVariables = []struct {
	label     string
	variables []string
}{
	{LabelCommit, []string{"GITHUB_SHA", "CI_COMMIT_SHA"}},
	{LabelBranch, []string{"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME"}},
	{LabelBuild, []string{"GITHUB_RUN_ID", "CI_PIPELINE_ID"}},
}

// EnvLabels returns the commit, branch and build of the CI job getenv
// describes (GitHub Actions, GitLab CI), each only when set: none outside
// a CI job.
func EnvLabels(getenv func(string) string) map[string]string {
	labels := map[string]string{}
	for _, ci := range ciVariables {
		for _, name := range ci.variables {
			if v := getenv(name); v != "" {
				labels[ci.label] = v
				break
			}
		}
	}
	return labels
}

// ParseLabels reads KEY=VALUE pairs (--label), a later pair winning over
// an earlier one of the same key. Prepare checks the keys and values.
func ParseLabels(pairs []string) (map[string]string, error) {
	return spec.ParseLabelPairs(pairs, FieldLabel)
}
