package bench

import (
	"fmt"
	"regexp"
	"strings"
)

// httpMethod is what a method may be: an HTTP token of capitals, as
// vegeta's targets files write it.
var httpMethod = regexp.MustCompile(`^[A-Z]+$`)

// checkOwnRequest checks a request given by its URI rather than by a
// contract endpoint; the method, header and body belong to such requests
// only.
func checkOwnRequest(r Request, field string) error {
	if r.URI == "" {
		switch {
		case r.Method != "":
			return FieldErrorf(field+".method", "is for a request given by uri; an endpoint is asked with GET")
		case len(r.Header) > 0:
			return FieldErrorf(field+".header", "is for a request given by uri")
		case r.Body != "":
			return FieldErrorf(field+".body", "is for a request given by uri")
		case len(r.Expect) > 0:
			return FieldErrorf(field+".expect", "is for a request given by uri; an endpoint answers 200")
		}
		return nil
	}
	switch {
	case r.Endpoint != "" || len(r.Params) > 0:
		return FieldErrorf(field+".uri", "give an endpoint (with params) or a uri, not both")
	case !strings.HasPrefix(r.URI, "/") || strings.ContainsAny(r.URI, " \t\r\n#"):
		return FieldErrorf(field+".uri", "must be a path with an optional query, starting with /, got %q", r.URI)
	case r.Method != "" && !httpMethod.MatchString(r.Method):
		return FieldErrorf(field+".method", "must be an HTTP method in capitals (GET, POST, ...), got %q", r.Method)
	case r.Weight < 0 || r.Weight > MaxWeight:
		return FieldErrorf(field+".weight", "must be from 1 to %d, got %d", MaxWeight, r.Weight)
	case len(r.Name) > MaxNameLength:
		return FieldErrorf(field+".name", "must be at most %d characters", MaxNameLength)
	}
	for _, code := range r.Expect {
		if code < 100 || code > 599 {
			return FieldErrorf(field+".expect", "must list HTTP status codes (100 to 599), got %d", code)
		}
	}
	for k, vs := range r.Header {
		if k == "" || strings.ContainsAny(k, ": \t\r\n") {
			return FieldErrorf(field+".header", "bad header name %q", k)
		}
		for _, v := range vs {
			if strings.ContainsAny(v, "\r\n") {
				return FieldErrorf(field+".header."+k, "a header value must be one line")
			}
		}
	}
	return nil
}

// checkOwnServices holds a service of one's own to requests of one's own:
// it serves no contract endpoint, so a request by endpoint would only fail
// once its container had started. The field named is the first request
// by endpoint (or the workload, when it has no request).
func checkOwnServices(spec *RunSpec, c Catalog) error {
	for i, cs := range spec.RunCases() {
		info, err := LookupTarget(c.Targets, cs.Target)
		if err != nil || !info.Own {
			continue // an unknown target is checkTargets' or checkCases'
		}
		prefix := ""
		if cs.Workload != nil {
			prefix = fmt.Sprintf("cases[%d].", i)
		}
		if field := contractRequest(spec.ForCase(cs).Workload); field != "" {
			return FieldErrorf(prefix+field, "%s is a service of your own, which serves no contract endpoint: "+
				"attack it with requests of your own, given by uri (as a vegeta targets file writes them)", cs.Target)
		}
	}
	return nil
}

// contractRequest returns the path of a workload's first request given by
// endpoint rather than by uri, "workload.requests" for a workload with no
// request, and "" when every request is given by uri.
func contractRequest(w Workload) string {
	for i, r := range w.Requests {
		if r.URI == "" {
			return fmt.Sprintf("workload.requests[%d].endpoint", i)
		}
	}
	for i, st := range w.Iteration {
		if st.Request != nil && st.Request.URI == "" {
			return fmt.Sprintf("workload.iteration[%d].request.endpoint", i)
		}
	}
	if len(w.AllRequests()) == 0 {
		return "workload.requests"
	}
	return ""
}
