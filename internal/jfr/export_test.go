package jfr

import (
	"context"
	"errors"
	"io"

	"github.com/threadbench/threadbench/internal/jdk"
)

// ParseSummary exposes parseSummary to the tests.
var ParseSummary = parseSummary

// WithoutPrint returns t with a jfr command that fails, so that only its
// reader can read.
func WithoutPrint(t Tool) Tool {
	t.run = func(context.Context, io.Writer, string, ...string) error {
		return errors.New("jfr is not to be run")
	}
	return t
}

// WithReader returns t with the reader run on j.
func WithReader(t Tool, j jdk.JDK) Tool {
	t.reader = &javaReader{jdk: j}
	return t
}
