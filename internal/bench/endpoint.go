package bench

import (
	"bytes"
	"io"
	"net/url"
	"sort"
	"strings"
)

// Endpoints of the target contract (targets/CONTRACT.md) that a workload may
// use, mapped to their paths.
var Endpoints = map[string]string{
	"light":        "/api/light",
	"heavy":        "/api/heavy",
	"cpu":          "/api/cpu",
	"native":       "/api/native",
	"synchronized": "/api/synchronized",
}

// EndpointNames returns the contract's workload endpoints in sorted order.
func EndpointNames() []string {
	names := make([]string, 0, len(Endpoints))
	for n := range Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// EndpointPath returns the path and encoded query for an endpoint name.
func EndpointPath(endpoint string, params map[string]string) string {
	path, ok := Endpoints[endpoint]
	if !ok {
		path = "/api/" + strings.TrimPrefix(endpoint, "/")
	}
	if len(params) == 0 {
		return path
	}
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	return path + "?" + q.Encode()
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
