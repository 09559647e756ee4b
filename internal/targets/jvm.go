package targets

import (
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// gcNames maps the spellings users write (lower case, "GC" suffix dropped)
// to HotSpot's -XX:+Use<Name>GC.
var gcNames = map[string]string{
	"g1":         "G1",
	"parallel":   "Parallel",
	"serial":     "Serial",
	"z":          "Z",
	"shenandoah": "Shenandoah",
}

// JVMFlags returns the JVM flags both Java targets run with. The thread
// model is deliberately not an input: whatever differs between the two Java
// targets must be the thread model alone.
func JVMFlags(java bench.JavaOptions) ([]string, error) {
	heap := java.HeapPercent
	if heap == 0 {
		heap = bench.DefaultHeapPercent
	}
	if heap < 0 || heap > 100 {
		return nil, bench.FieldErrorf("java.heapPercent", "must be between 0 and 100, got %g", java.HeapPercent)
	}
	flags := []string{
		"-XX:MaxRAMPercentage=" + strconv.FormatFloat(heap, 'f', -1, 64),
		"-XX:NativeMemoryTracking=summary",
		"--enable-native-access=ALL-UNNAMED",
		"-XX:+ExitOnOutOfMemoryError",
	}
	if java.GC != "" {
		gc, ok := gcNames[strings.TrimSuffix(strings.ToLower(java.GC), "gc")]
		if !ok {
			return nil, bench.FieldErrorf("java.gc", "unknown garbage collector %q (use G1, Parallel, Serial, Z or Shenandoah)", java.GC)
		}
		flags = append(flags, "-XX:+Use"+gc+"GC")
	}
	if java.VirtualParallelism < 0 {
		return nil, bench.FieldErrorf("java.virtualParallelism", "must not be negative, got %d", java.VirtualParallelism)
	}
	if java.VirtualParallelism > 0 {
		flags = append(flags, "-Djdk.virtualThreadScheduler.parallelism="+strconv.Itoa(java.VirtualParallelism))
	}
	return flags, nil
}

// ContainerEnv returns the environment the named target runs with on port:
// the contract's PORT, BIND_ADDR and TARGET_NAME; for the Java targets
// THREAD_MODEL, TOMCAT_MAX_THREADS and JDK_JAVA_OPTIONS (from JVMFlags, so
// identical for both); then opts.Env, which may override any of them.
func ContainerEnv(name string, port int, opts StartOptions) (map[string]string, error) {
	entry, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	env := map[string]string{
		"PORT":        strconv.Itoa(port),
		"BIND_ADDR":   "127.0.0.1",
		"TARGET_NAME": entry.Name,
	}
	if entry.Kind == KindJava {
		if err := addJavaEnv(env, entry, opts.Java); err != nil {
			return nil, err
		}
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	return env, nil
}

func addJavaEnv(env map[string]string, entry Entry, java bench.JavaOptions) error {
	flags, err := JVMFlags(java)
	if err != nil {
		return err
	}
	maxThreads := java.TomcatMaxThreads
	if maxThreads == 0 {
		maxThreads = bench.DefaultTomcatMaxThreads
	}
	if maxThreads < 1 {
		return bench.FieldErrorf("java.tomcatMaxThreads", "must be at least 1, got %d", java.TomcatMaxThreads)
	}
	env["THREAD_MODEL"] = entry.ThreadModel
	env["TOMCAT_MAX_THREADS"] = strconv.Itoa(maxThreads)
	env["JDK_JAVA_OPTIONS"] = strings.Join(flags, " ")
	return nil
}
