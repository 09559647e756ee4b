package targets

import (
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Kinds of target: which language, hence which build.
const (
	KindGo   = "go"
	KindJava = "java"
)

// Thread models, as bench.TargetInfo names them.
const (
	ThreadModelGoroutines = "goroutines"
	ThreadModelPlatform   = "platform"
	ThreadModelVirtual    = "virtual"
)

// HealthPath is the readiness endpoint every target serves (targets/CONTRACT.md).
const HealthPath = "/health"

// Entry is one target of the catalog.
type Entry struct {
	Name        string
	Kind        string // KindGo or KindJava
	ThreadModel string // ThreadModelGoroutines, ThreadModelPlatform or ThreadModelVirtual
	MetricsPath string // Prometheus text exposition
	HealthPath  string
	Description string
}

// Info returns the entry as the API and CLI describe it.
func (e Entry) Info() bench.TargetInfo {
	return bench.TargetInfo{
		Name:        e.Name,
		Kind:        e.Kind,
		ThreadModel: e.ThreadModel,
		MetricsPath: e.MetricsPath,
		Description: e.Description,
	}
}

// catalog lists the targets in the order runs default to.
var catalog = []Entry{
	{
		Name:        bench.TargetGo,
		Kind:        KindGo,
		ThreadModel: ThreadModelGoroutines,
		MetricsPath: "/metrics",
		HealthPath:  HealthPath,
		Description: "Go net/http server, one goroutine per request",
	},
	{
		Name:        bench.TargetJavaPlatform,
		Kind:        KindJava,
		ThreadModel: ThreadModelPlatform,
		MetricsPath: "/actuator/prometheus",
		HealthPath:  HealthPath,
		Description: "Spring Boot on Tomcat, a bounded pool of platform threads",
	},
	{
		Name:        bench.TargetJavaVirtual,
		Kind:        KindJava,
		ThreadModel: ThreadModelVirtual,
		MetricsPath: "/actuator/prometheus",
		HealthPath:  HealthPath,
		Description: "the same Spring Boot jar, one virtual thread per request",
	},
}

// Entries returns the catalog in its default order.
func Entries() []Entry {
	return append([]Entry(nil), catalog...)
}

// Names returns the target names in catalog order.
func Names() []string {
	names := make([]string, len(catalog))
	for i, e := range catalog {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the named entry, or an ENOTFOUND *bench.Error that lists
// the valid names.
func Lookup(name string) (Entry, error) {
	for _, e := range catalog {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, bench.Errorf(bench.ENOTFOUND, "unknown target %q (valid: %s)", name, strings.Join(Names(), ", "))
}
