package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Target names of the built-in catalog.
const (
	TargetGo           = "go"
	TargetJavaPlatform = "java-platform"
	TargetJavaVirtual  = "java-virtual"
	TargetJavaReactive = "java-reactive"
)

// Thread models: what a target runs each request on, as TargetInfo's
// ThreadModel, a target's /info and its recorded settings name them.
const (
	ThreadModelGoroutines = "goroutines"
	ThreadModelPlatform   = "platform"
	ThreadModelVirtual    = "virtual"
	// ThreadModelReactive is Spring WebFlux on Reactor Netty: a few
	// event-loop threads serve every request, waits hold no thread, and
	// blocking work runs on Reactor's bounded elastic pool.
	ThreadModelReactive = "reactive"
)

// ThreadModels are the thread models, in the order tables show them.
var ThreadModels = []string{ThreadModelPlatform, ThreadModelVirtual, ThreadModelReactive, ThreadModelGoroutines}

// Keys of a result's Settings a Java target records as it starts (the
// targets' Java recipe), which the size of its pool is read from
// (TargetResult.PoolThreads).
const (
	SettingJavaThreadModel  = "javaThreadModel"
	SettingTomcatMaxThreads = "tomcatMaxThreads"
)

// Runtimes: what a target's recipe runs it on, as TargetInfo's Kind names it.
const (
	RuntimeGo   = "go"
	RuntimeJava = "java"
)

// BuiltinTarget is a target of the built-in catalog as the parts that read
// stored runs know it, without the catalog that built it: its runtime and
// its thread model. A run stored before its targets recorded their thread
// model is read by this table, never by the target's name.
type BuiltinTarget struct {
	Name        string
	Runtime     string // RuntimeGo, RuntimeJava
	ThreadModel string // one of ThreadModels
}

// BuiltinTargets are the built-in catalog's targets, in its order
// (internal/targets' DefaultCatalog, which a test holds to this table).
var BuiltinTargets = []BuiltinTarget{
	{Name: TargetGo, Runtime: RuntimeGo, ThreadModel: ThreadModelGoroutines},
	{Name: TargetJavaPlatform, Runtime: RuntimeJava, ThreadModel: ThreadModelPlatform},
	{Name: TargetJavaVirtual, Runtime: RuntimeJava, ThreadModel: ThreadModelVirtual},
	{Name: TargetJavaReactive, Runtime: RuntimeJava, ThreadModel: ThreadModelReactive},
}

// Builtin returns the built-in target a reference ("name" or
// "name@variant") names; the zero BuiltinTarget, with no runtime and no
// thread model, for any other (a target of one's own).
func Builtin(ref string) BuiltinTarget {
	name := ParseTargetRef(ref).Name
	for _, t := range BuiltinTargets {
		if t.Name == name {
			return t
		}
	}
	return BuiltinTarget{}
}

// TargetPair is a comparison of two targets: A relative to B.
type TargetPair struct {
	A, B string
}

// AskedPairs are the comparisons of built-in targets users ask about, by
// target name, in the order reports show them: virtual threads relative to
// platform threads, to goroutines and to WebFlux's event loops.
var AskedPairs = []TargetPair{
	{A: TargetJavaVirtual, B: TargetJavaPlatform},
	{A: TargetJavaVirtual, B: TargetGo},
	// Seeds 003 and 004: can virtual threads replace WebFlux?
	{A: TargetJavaVirtual, B: TargetJavaReactive},
}

// InAskedPair reports whether a target (by name) is one of an asked pair's.
func InAskedPair(name string) bool {
	return slices.ContainsFunc(AskedPairs, func(p TargetPair) bool { return p.A == name || p.B == name })
}

// Thread kinds: what runs a target's requests and work. Resource figures
// are keyed by them, so a new runtime adds rows, not fields.
const (
	ThreadPlatform  = "platform"  // OS threads (Java platform threads, Go's Ms)
	ThreadCarrier   = "carrier"   // platform threads that carry virtual threads
	ThreadVirtual   = "virtual"   // Java virtual threads, one per request in flight
	ThreadGoroutine = "goroutine" // Go goroutines
)

// ThreadKinds lists the thread kinds in the order tables show them.
var ThreadKinds = []string{ThreadPlatform, ThreadCarrier, ThreadVirtual, ThreadGoroutine}

// Memory figures, in bytes.
const (
	MemoryWorkingSet   = "workingSet"   // the container's working set (usage less inactive page cache)
	MemoryThreadStacks = "threadStacks" // committed for thread stacks (Java NMT Thread; Go stacks in use)
	MemoryHeap         = "heap"         // the managed heap in use
	// MemoryThreadStacksReserved is reserved for thread stacks (Java NMT
	// Thread reserved): a platform thread reserves its whole stack, and
	// seed 001 reads it beside the committed figure.
	MemoryThreadStacksReserved = "threadStacksReserved"
)

// MemoryKinds lists the memory figures in the order tables show them.
var MemoryKinds = []string{MemoryWorkingSet, MemoryHeap, MemoryThreadStacks, MemoryThreadStacksReserved}

// SeriesRef picks a scraped series by name and, optionally, one label's
// value; the series that differ in other labels are summed.
type SeriesRef struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	Value string `json:"value,omitempty"`
}

// FigureSource says which series give a resource figure (a thread kind or a
// memory figure): the first of them that has data.
type FigureSource struct {
	Figure string      `json:"figure"`
	Series []SeriesRef `json:"series"`
}

// TargetInfo describes a catalog entry to users and to the parts of a run
// that must know it without knowing how it is built.
type TargetInfo struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`        // the runtime: go, java
	ThreadModel string `json:"threadModel"` // one of ThreadModels
	MetricsPath string `json:"metricsPath"`
	Description string `json:"description"`
	// Variant names the dimension a target may vary along ("jdk"), Variants
	// its values and DefaultVariant the one a plain name runs.
	Variant        string   `json:"variant,omitempty"`
	Variants       []string `json:"variants,omitempty"`
	DefaultVariant string   `json:"defaultVariant,omitempty"`
	// Axes are the dimensions whose product Variants is, in the order a
	// variant's name writes them (AxesOf): a service of one's own may vary
	// along its variants, the JDK and axes of its own.
	Axes []Axis `json:"axes,omitempty"`
	// Threads and Memory map the target's own series onto the generic
	// resource figures.
	Threads []FigureSource `json:"threads,omitempty"`
	Memory  []FigureSource `json:"memory,omitempty"`
	// Unavailable says why this host cannot build the target ("" when it
	// can); a spec naming it is refused before anything starts.
	Unavailable string `json:"unavailable,omitempty"`
	// Own marks a service of one's own (a jar, image or Dockerfile, from
	// the command line or a configuration's targets): it serves no
	// contract endpoint, so it is attacked with requests of its own.
	Own bool `json:"own,omitempty"`
	// OnlyNamed marks a target a run runs only when it names it (the
	// WebFlux reference): a run, a form or a command that names no
	// target leaves it out.
	OnlyNamed bool `json:"onlyNamed,omitempty"`
	// Database is the database server a service of one's own needs, from
	// the configuration (its init script is the operator's, not shown): a
	// run naming the service that starts none starts this one.
	Database *Database `json:"-"`
}

// VariantOwn names the variant dimension of a service of one's own: named
// sets of environment and flags, each usually a thread model
// (orders@platform, orders@virtual), each a target to run of its own.
const VariantOwn = "variant"

// RunsEachVariant says whether each variant is a target to run of its own
// (a service's thread models), rather than a choice with a default (the
// built-in Java targets' JDK).
func (t TargetInfo) RunsEachVariant() bool { return t.Variant == VariantOwn }

// TargetRef is a target as a spec names it: a catalog name and, after an
// "@", one of its variants ("java-virtual@21").
type TargetRef struct {
	Name    string
	Variant string
}

// ParseTargetRef splits "name@variant".
func ParseTargetRef(s string) TargetRef {
	name, variant, _ := strings.Cut(s, "@")
	return TargetRef{Name: name, Variant: variant}
}

// String writes the reference back as a spec names it.
func (r TargetRef) String() string {
	if r.Variant == "" {
		return r.Name
	}
	return r.Name + "@" + r.Variant
}

// CheckTargetRef checks a reference ("name", "name@variant", or with axes
// "name@virtual,jdk=21") against the catalog; field is its JSON path in
// messages.
func CheckTargetRef(s string, infos []TargetInfo, field string) error {
	ref := ParseTargetRef(s)
	i := slices.IndexFunc(infos, func(t TargetInfo) bool { return t.Name == ref.Name })
	if i < 0 {
		return FieldErrorf(field, "unknown target %q (known: %s)", ref.Name, strings.Join(TargetNames(infos), ", "))
	}
	info := infos[i]
	if info.Unavailable != "" {
		return FieldErrorf(field, "target %s cannot be built here: %s", info.Name, info.Unavailable)
	}
	_, err := info.ParseVariant(ref.Variant, field)
	return err
}

func TargetNames(infos []TargetInfo) []string {
	names := make([]string, len(infos))
	for i, t := range infos {
		names[i] = t.Name
	}
	return names
}

// LookupTarget returns the catalog entry a reference names.
func LookupTarget(infos []TargetInfo, ref string) (TargetInfo, error) {
	name := ParseTargetRef(ref).Name
	for _, t := range infos {
		if t.Name == name {
			return t, nil
		}
	}
	return TargetInfo{}, Errorf(ENOTFOUND, "unknown target %q (known: %s)", name, strings.Join(TargetNames(infos), ", "))
}

// ThreadLabel names a thread kind for people: "platform threads", "goroutines".
func ThreadLabel(kind string) string {
	switch kind {
	case ThreadGoroutine:
		return "goroutines"
	case ThreadPlatform, ThreadCarrier, ThreadVirtual:
		return kind + " threads"
	}
	return fmt.Sprintf("%s threads", kind)
}
