package bench

import (
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
