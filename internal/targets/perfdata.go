package targets

import (
	"context"

	"github.com/moby/moby/client"
)

// A JVM's own counters (its perf data file, the one jstat reads) give its
// threads, heap, collections and JIT time where the service has no
// Prometheus endpoint: the metrics recording copies the file out of the
// container every interval, through the engine the instance runs on.

// CopyFromContainer copies a path out of a container as a tar archive,
// from the engine the instance runs on (metrics.Copier): with several
// engines, only its own knows its container.
func (in *Instance) CopyFromContainer(ctx context.Context, containerID string, options client.CopyFromContainerOptions) (client.CopyFromContainerResult, error) {
	return in.runtime.docker.CopyFromContainer(ctx, containerID, options)
}

// RunsJVM reports whether the instance runs a JVM (Entry.RunsJVM): a
// recording reads its perf counters where its metrics lack the JVM's
// series.
func (in *Instance) RunsJVM() bool { return in.entry.RunsJVM() }
