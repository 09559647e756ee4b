package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// checkOwnRequest checks a request given by its URI rather than by a
// contract endpoint; the method, header and body belong to such requests
// only.
func checkOwnRequest(r bench.Request, field string) error {
	if r.URI == "" {
		switch {
		case r.Method != "":
			return bench.FieldErrorf(field+".method", "is for a request given by uri; an endpoint is asked with GET")
		case len(r.Header) > 0:
			return bench.FieldErrorf(field+".header", "is for a request given by uri")
		case r.Body != "":
			return bench.FieldErrorf(field+".body", "is for a request given by uri")
		case len(r.Expect) > 0:
			return bench.FieldErrorf(field+".expect", "is for a request given by uri; an endpoint answers 200")
		}
		return nil
	}
	switch {
	case r.Endpoint != "" || len(r.Params) > 0:
		return bench.FieldErrorf(field+".uri", "give an endpoint (with params) or a uri, not both")
	case !strings.HasPrefix(r.URI, "/") || strings.ContainsAny(r.URI, " \t\r\n#"):
		return bench.FieldErrorf(field+".uri", "must be a path with an optional query, starting with /, got %q", r.URI)
	case r.Method != "" && !httpMethod.MatchString(r.Method):
		return bench.FieldErrorf(field+".method", "must be an HTTP method in capitals (GET, POST, ...), got %q", r.Method)
	case r.Weight < 0 || r.Weight > bench.MaxWeight:
		return bench.FieldErrorf(field+".weight", "must be from 1 to %d, got %d", bench.MaxWeight, r.Weight)
	case len(r.Name) > bench.MaxNameLength:
		return bench.FieldErrorf(field+".name", "must be at most %d characters", bench.MaxNameLength)
	}
	for _, code := range r.Expect {
		if code < 100 || code > 599 {
			return bench.FieldErrorf(field+".expect", "must list HTTP status codes (100 to 599), got %d", code)
		}
	}
	for k, vs := range r.Header {
		if k == "" || strings.ContainsAny(k, ": \t\r\n") {
			return bench.FieldErrorf(field+".header", "bad header name %q", k)
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n") {
				return bench.FieldErrorf(field+".header."+k, "a header value must be one line")
			}
		}
	}
	return nil
}

// checkOwnServices holds a service of one's own to requests of one's own:
// it serves no contract endpoint, so a request by endpoint would only fail
// once its container had started. The field named is the first request
// by endpoint (or the workload, when it has no request).
func checkOwnServices(spec *bench.RunSpec, c bench.Catalog) error {
	for i, cs := range spec.RunCases() {
		info, err := bench.LookupTarget(c.Targets, cs.Target)
		if err != nil || !info.Own {
			continue // an unknown target is checkTargets' or checkCases'
		}
		prefix := ""
		if cs.Workload != nil {
			prefix = fmt.Sprintf("cases[%d].", i)
		}
		if field := bench.ContractRequest(spec.ForCase(cs).Workload); field != "" {
			return bench.FieldErrorf(prefix+field, "%s is a service of your own, which serves no contract endpoint: "+
				"attack it with requests of your own, given by uri (as a vegeta targets file writes them)", cs.Target)
		}
	}
	return nil
}

// httpMethod is what a method may be: an HTTP token of capitals, as
// vegeta's targets files write it.
var httpMethod = regexp.MustCompile(`^[A-Z]+$`)
