package targets

import (
	"regexp"
	"slices"
	"strings"
)

// failureLogLines is how much of a failed target's log is searched for
// the lines that say why (tellingLines): a JVM's failed start ends in
// dozens of stack frames, below the exception that names the cause.
const failureLogLines = 400

// tellingLine is a log line that reports a failure: an exception, an
// error or a fatal message, not a stack frame.
var tellingLine = regexp.MustCompile(`(?i)(exception|error|fatal|failed|caused by|refused|denied)`)

// maxTellingLines bounds how many lines tellingLines returns.
const maxTellingLines = 4

// tellingLines returns the lines of a log that say why a service failed,
// in their order: the first lines that report a failure (a Spring Boot
// start names its root cause first, e.g. "org.postgresql.util.
// PSQLException: FATAL: password authentication failed for user ...")
// and the last "Caused by:" of the exception chain printed last. Stack
// frames ("at ...", "... 20 common frames omitted") and the JVM's echo of
// its options ("Picked up JAVA_TOOL_OPTIONS: ...-XX:+ExitOnOutOfMemoryError")
// are never among them; a line seen once is not repeated.
func tellingLines(logs string) []string {
	var found, causes []string
	for _, line := range strings.Split(logs, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "at ") || strings.HasPrefix(trimmed, "... ") || strings.Contains(trimmed, "Picked up ") ||
			!tellingLine.MatchString(trimmed) {
			continue
		}
		if strings.HasPrefix(trimmed, "Caused by:") {
			causes = append(causes, trimmed)
			continue
		}
		if !slices.Contains(found, trimmed) {
			found = append(found, trimmed)
		}
	}
	out := found[:min(len(found), maxTellingLines-1)]
	if n := len(causes); n > 0 && !slices.Contains(out, causes[n-1]) {
		out = append(out, causes[n-1])
	}
	return out
}

// lastLines returns the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
