//go:build !linux

package server

import "time"

// nativeSleep falls back to time.Sleep off Linux, where there is no raw
// nanosleep system call to make. Targets only run on Linux; this keeps the
// package building elsewhere for development.
func nativeSleep(d time.Duration) { time.Sleep(d) }
