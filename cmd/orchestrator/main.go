// Command orchestrator builds the threadbench targets, puts them under staged
// load one at a time, and keeps and compares the results.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := newGlobalState(ctx, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	os.Exit(execute(g, os.Args[1:]))
}
