// Package threadbench carries the sources of the built-in targets inside
// every orchestrator binary, so that one installed with go install, or
// copied anywhere, builds the Go and Java targets from any directory with
// no checkout and no THREADBENCH_REPO. Inside a checkout the orchestrator
// builds from the checkout instead, so that an edited target is what runs.
package threadbench

import "embed"

// TargetSources holds what the built-in targets are built from, at the
// paths they have in the repository: the module's go.mod and go.sum with
// targets/go (built by the host's go command), and targets/java's Maven
// project with its wrapper (built by the host's JDK).
//
//go:embed go.mod go.sum
//go:embed targets/go
//go:embed targets/java/pom.xml targets/java/boot3/pom.xml targets/java/src targets/java/Dockerfile targets/java/.dockerignore
//go:embed targets/java/mvnw targets/java/.mvn/wrapper/maven-wrapper.properties
var TargetSources embed.FS
