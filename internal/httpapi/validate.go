package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"

	"github.com/threadbench/threadbench/internal/bench"
)

// validate checks a routed request's parameters against the operation
// api/openapi.yaml declares for its route (GET's for HEAD), and answers 400
// naming the parameter at fault. Bodies are left to the domain's strict
// decoder (decodeSpec), the one place that reads run specs.
func (s *Server) validate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, pathParams := s.spec.find(r)
		if route == nil {
			next.ServeHTTP(w, r) // mounted but not in the document: TestRoutesMatchSpec says so
			return
		}
		if err := validateRequest(r, route, pathParams); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// find returns the operation of the route chi matched and its path
// parameters.
func (routes specRoutes) find(r *http.Request) (*routers.Route, map[string]string) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return nil, nil
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	route := routes[method+" "+rctx.RoutePattern()]
	params := make(map[string]string, len(rctx.URLParams.Keys))
	for i, key := range rctx.URLParams.Keys {
		params[key] = rctx.URLParams.Values[i]
	}
	return route, params
}

// validateRequest runs kin-openapi's validation, stopping at the first fault.
// Defaults are not written into the request: the domain applies its own.
func validateRequest(r *http.Request, route *routers.Route, pathParams map[string]string) error {
	err := openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options: &openapi3filter.Options{
			ExcludeRequestBody:  true,
			SkipSettingDefaults: true,
			AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
		},
	})
	if err == nil {
		return nil
	}
	return requestFault(err)
}

// requestFault turns a kin-openapi validation error into an EINVALID
// *bench.Error naming the parameter or body field at fault.
func requestFault(err error) error {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return bench.Errorf(bench.EINVALID, "invalid request: %v", err)
	}
	if re.Parameter != nil {
		return bench.FieldErrorf(re.Parameter.Name, "%s", parameterReason(re))
	}
	return bodyFault(re)
}

func parameterReason(re *openapi3filter.RequestError) string {
	var se *openapi3.SchemaError
	var pe *openapi3filter.ParseError
	switch {
	case errors.As(re.Err, &se):
		return schemaReason(se)
	case errors.As(re.Err, &pe) && pe.Value != nil && pe.Reason != "":
		return fmt.Sprintf("%s is %s", quoteClipped(fmt.Sprint(pe.Value)), pe.Reason)
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
		return "is required"
	case re.Err != nil:
		return re.Err.Error()
	}
	return re.Reason
}

func bodyFault(re *openapi3filter.RequestError) error {
	var se *openapi3.SchemaError
	switch {
	case errors.As(re.Err, &se):
		path, reason := schemaFault(se)
		if field := jsonPath(path); field != "" {
			return bench.FieldErrorf(field, "%s", reason)
		}
		return bench.Errorf(bench.EINVALID, "request body: %s", reason)
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
		return bench.Errorf(bench.EINVALID, "request body is required")
	case re.Err == nil && strings.Contains(re.Reason, "Content-Type"):
		return bench.FieldErrorf("Content-Type", "must be application/json")
	}
	return bench.Errorf(bench.EINVALID, "request body: %v", re.Error())
}

// schemaFault returns the JSON path of the value at fault and what is wrong
// with it. It looks into a failed oneOf for the branch the value was meant
// for, and names unknown properties, which kin-openapi reports at their parent.
func schemaFault(se *openapi3.SchemaError) ([]string, string) {
	path := se.JSONPointer()
	if se.SchemaField == "oneOf" {
		if inner := oneOfBranchError(se); inner != nil {
			return schemaFault(inner)
		}
	}
	if name := unknownProperty(se); name != "" {
		return slices.Concat(path, []string{name}), "unknown field"
	}
	return path, schemaReason(se)
}

// oneOfBranchError returns the error of the oneOf branch whose type the value
// has: the branches of another type fail where the oneOf is, with a type
// error. (kin-openapi gives branch errors their full path.)
func oneOfBranchError(se *openapi3.SchemaError) *openapi3.SchemaError {
	var branches openapi3.MultiError
	if !errors.As(se.Origin, &branches) {
		return nil
	}
	depth := len(se.JSONPointer())
	for _, err := range branches {
		var sub *openapi3.SchemaError
		if !errors.As(err, &sub) {
			continue
		}
		if sub.SchemaField == "type" && len(sub.JSONPointer()) == depth {
			continue
		}
		return sub
	}
	return nil
}

// unknownProperty returns the first property of an object that its schema
// does not allow, or "".
func unknownProperty(se *openapi3.SchemaError) string {
	obj, ok := se.Value.(map[string]any)
	if !ok || se.Schema == nil || se.Schema.AdditionalProperties.Has == nil || *se.Schema.AdditionalProperties.Has {
		return ""
	}
	var unknown []string
	for k := range obj {
		if _, known := se.Schema.Properties[k]; !known {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	sort.Strings(unknown)
	return unknown[0]
}

// schemaReason says what is wrong with a value: the schema's x-error when it
// has one, a readable word for formats, else kin-openapi's reason (which
// never quotes the value).
func schemaReason(se *openapi3.SchemaError) string {
	if se.Schema != nil {
		if msg, ok := se.Schema.Extensions["x-error"].(string); ok {
			return msg
		}
		if se.SchemaField == "format" {
			return formatReason(se.Schema.Format)
		}
	}
	if se.SchemaField == "required" {
		return "is required" // kin-openapi puts the missing property in the path
	}
	if se.Reason != "" {
		return se.Reason
	}
	return "does not satisfy " + se.SchemaField
}

func formatReason(format string) string {
	switch format {
	case "date-time":
		return "must be an RFC 3339 time such as 2026-05-01T12:00:00Z"
	}
	return fmt.Sprintf("must be in the %q format", format)
}

// jsonPath writes a JSON pointer's segments the way bench.FieldErrorf names
// fields: "profile.stages[2].duration".
func jsonPath(segments []string) string {
	var b strings.Builder
	for _, seg := range segments {
		if seg == "" {
			continue
		}
		if _, err := strconv.Atoi(seg); err == nil {
			fmt.Fprintf(&b, "[%s]", seg)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}
