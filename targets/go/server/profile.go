package server

import (
	"net/http"
	"net/http/pprof"
	"strings"
)

// ProfilePath is where the Go target serves net/http/pprof's profiles, as
// every Go service may: GET /debug/pprof/profile?seconds=N is a CPU
// profile of the next N seconds. It is the Go counterpart of the Java
// target's flight recorder, which the JVM runs without an endpoint.
const ProfilePath = "/debug/pprof/"

// routeProfiles mounts net/http/pprof's handlers on mux, outside the
// request histogram and the pool: a profile is no request of the
// workload, and one lasts as long as it profiles.
func routeProfiles(mux *http.ServeMux) {
	mux.HandleFunc("GET "+ProfilePath, pprof.Index)
	mux.HandleFunc("GET "+ProfilePath+"cmdline", pprof.Cmdline)
	mux.HandleFunc("GET "+ProfilePath+"profile", pprof.Profile)
	mux.HandleFunc("GET "+ProfilePath+"symbol", pprof.Symbol)
	mux.HandleFunc("GET "+ProfilePath+"trace", pprof.Trace)
}

// isProfile reports whether a request is for a profile.
func isProfile(path string) bool { return strings.HasPrefix(path, ProfilePath) }
