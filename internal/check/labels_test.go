package check_test

import (
	"errors"
	"maps"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/check"
)

func asError(err error, target **bench.Error) bool { return errors.As(err, target) }

func TestEnvLabels(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"NotInCI", map[string]string{"HOME": "/root"}, map[string]string{}},
		{"GitHubPush", map[string]string{"GITHUB_SHA": "3f2a9c1", "GITHUB_REF_NAME": "main", "GITHUB_RUN_ID": "8123"},
			map[string]string{"commit": "3f2a9c1", "branch": "main", "build": "8123"}},
		// A pull request's ref name is "42/merge"; its branch is the head ref.
		{"GitHubPullRequest", map[string]string{"GITHUB_SHA": "9d8e7f6", "GITHUB_REF_NAME": "42/merge", "GITHUB_HEAD_REF": "faster-pool", "GITHUB_RUN_ID": "8124"},
			map[string]string{"commit": "9d8e7f6", "branch": "faster-pool", "build": "8124"}},
		{"GitLab", map[string]string{"CI_COMMIT_SHA": "abc123", "CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_ID": "77"},
			map[string]string{"commit": "abc123", "branch": "main", "build": "77"}},
		// Only what is set.
		{"CommitOnly", map[string]string{"CI_COMMIT_SHA": "abc123"}, map[string]string{"commit": "abc123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := check.EnvLabels(func(k string) string { return tt.env[k] }); !maps.Equal(got, tt.want) {
				t.Errorf("EnvLabels = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseLabels(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got, err := check.ParseLabels([]string{"branch=main", "note=a=b", "branch=release", "empty="})
		want := map[string]string{"branch": "release", "note": "a=b", "empty": ""} // the later of a key wins
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("ParseLabels = %v, %v; want %v", got, err, want)
		}
	})
	t.Run("ErrNoValue", func(t *testing.T) {
		for _, in := range []string{"branch", "=main"} {
			_, err := check.ParseLabels([]string{in})
			var e *bench.Error
			if !asError(err, &e) || e.Field != check.FieldLabel {
				t.Errorf("ParseLabels(%q) = %v, want a %s error", in, err, check.FieldLabel)
			}
		}
	})
}
