// Package server is the Go target of threadbench: a net/http server that
// obeys targets/CONTRACT.md field for field, so that a benchmark compares
// thread models (goroutines versus Tomcat's platform or virtual threads),
// not code.
//
// It is a library so that tests can mount its handler with httptest;
// targets/go's main reads the environment and runs it.
package server
