package bench

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Param is one query parameter of a contract endpoint: an integer from Min
// to Max, or, when Values is set, one of those words.
type Param struct {
	Name    string   `json:"name"`
	Default string   `json:"default"`
	Min     int      `json:"min,omitempty"`
	Max     int      `json:"max,omitempty"`
	Values  []string `json:"values,omitempty"`
	Unit    string   `json:"unit,omitempty"`
}

// Check returns an EINVALID *Error naming field when v is not a valid value.
func (p Param) Check(v, field string) error {
	if len(p.Values) > 0 {
		if !slices.Contains(p.Values, v) {
			return FieldErrorf(field, "must be one of %s, got %q", strings.Join(p.Values, ", "), v)
		}
		return nil
	}
	// Decimal digits only: strconv.Atoi would take a sign too, which
	// api/openapi.yaml's patterns do not.
	digits := v != "" && strings.Trim(v, "0123456789") == ""
	n, err := strconv.Atoi(v)
	if !digits || err != nil || n < p.Min || n > p.Max {
		return FieldErrorf(field, "must be an integer from %d to %d, got %q", p.Min, p.Max, v)
	}
	return nil
}

// Range describes the values p takes, for messages and listings.
func (p Param) Range() string {
	if len(p.Values) > 0 {
		return strings.Join(p.Values, "|")
	}
	return fmt.Sprintf("%d..%d", p.Min, p.Max)
}

// Endpoint is one workload endpoint of the target contract
// (targets/CONTRACT.md): its path and the parameters it takes.
type Endpoint struct {
	Name   string  `json:"name"`
	Path   string  `json:"path"`
	Params []Param `json:"params"`
	// Downstream is set on endpoints that call the run's downstream service.
	Downstream bool `json:"downstream,omitempty"`
	// Database is set on endpoints that query the run's database server.
	Database    bool   `json:"database,omitempty"`
	Description string `json:"description"`
}

// Param returns the endpoint's parameter called name.
func (e Endpoint) Param(name string) (Param, bool) {
	for _, p := range e.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// CheckParams checks params against the endpoint's parameters; field is the
// JSON path of the request, e.g. "workload.requests[0]".
func (e Endpoint) CheckParams(params map[string]string, field string) error {
	for _, name := range slices.Sorted(maps.Keys(params)) {
		p, ok := e.Param(name)
		if !ok {
			return FieldErrorf(field+".params."+name, "%s takes no parameter %q (%s)", e.Name, name, e.describeParams())
		}
		if err := p.Check(params[name], field+".params."+name); err != nil {
			return err
		}
	}
	return nil
}

func (e Endpoint) describeParams() string {
	if len(e.Params) == 0 {
		return "it takes none"
	}
	parts := make([]string, len(e.Params))
	for i, p := range e.Params {
		parts[i] = p.Name + " " + p.Range()
	}
	return "it takes " + strings.Join(parts, ", ")
}

// Contract limits shared by several endpoints.
const (
	MaxDurationParam = 60000 // ms: heavy, native, synchronized and the downstream calls
	MaxWorkParam     = 100000
	MaxCallsParam    = 10000 // fan-out calls per request, and bulkhead permits
)

// Fan-out modes (GET /api/fanout?mode=). ModeVirtual and ModeGoroutines are
// each runtime's own word for ModeUnbounded; every target accepts all five.
const (
	ModePool       = "pool"
	ModeUnbounded  = "unbounded"
	ModeSemaphore  = "semaphore"
	ModeVirtual    = "virtual"
	ModeGoroutines = "goroutines"
)

func durationParam(def string) Param {
	return Param{Name: "duration", Default: def, Min: 0, Max: MaxDurationParam, Unit: "ms"}
}

// endpoints is the contract's workload endpoints, in the order listings show them.
var endpoints = []Endpoint{
	{Name: "light", Path: "/api/light", Params: []Param{}, Description: "answers at once"},
	{Name: "heavy", Path: "/api/heavy", Params: []Param{durationParam("100"),
		{Name: "times", Default: "1", Min: 1, Max: 100, Unit: "sleeps"},
		{Name: "log", Default: "0", Min: 0, Max: 1, Unit: "1 to log a line"}},
		Description: "blocks in the runtime's ordinary sleep, times in a row; log=1 logs a line per request"},
	{Name: "cpu", Path: "/api/cpu", Params: []Param{{Name: "work", Default: "1000", Min: 0, Max: MaxWorkParam, Unit: "rounds"}},
		Description: "SHA-256 rounds, the same checksum in every target"},
	{Name: "native", Path: "/api/native", Params: []Param{durationParam("100")},
		Description: "a blocking nanosleep system call (pins a virtual thread's carrier)"},
	{Name: "synchronized", Path: "/api/synchronized", Params: []Param{durationParam("100")},
		Description: "sleeps holding a lock (pins carriers on JDK 21-23)"},
	{Name: "lock", Path: "/api/lock", Params: []Param{durationParam("100")},
		Description: "sleeps holding a ReentrantLock (Go: a sync.Mutex), the fix for synchronized: pins on no JDK"},
	{Name: "fanout", Path: "/api/fanout", Downstream: true, Params: []Param{
		{Name: "calls", Default: "100", Min: 1, Max: MaxCallsParam, Unit: "calls"},
		{Name: "mode", Default: ModeUnbounded, Values: []string{ModePool, ModeUnbounded, ModeSemaphore, ModeVirtual, ModeGoroutines}},
		{Name: "limit", Default: "100", Min: 1, Max: MaxCallsParam, Unit: "permits"},
		{Name: "timeout", Default: "5000", Min: 1, Max: MaxDurationParam, Unit: "ms"},
		durationParam("3000"),
	}, Description: "makes N concurrent calls to the downstream's heavy endpoint and reports what happened"},
	{Name: "downstream", Path: "/api/downstream", Downstream: true, Params: []Param{
		durationParam("100"),
		{Name: "limit", Default: "0", Min: 0, Max: MaxCallsParam, Unit: "permits"},
		{Name: "timeout", Default: "5000", Min: 1, Max: MaxDurationParam, Unit: "ms"},
	}, Description: "one downstream call per request, through an optional bulkhead shared by all requests"},
	{Name: "db", Path: "/api/db", Database: true, Params: []Param{
		{Name: "delay", Default: "0", Min: 0, Max: MaxDurationParam, Unit: "ms"},
	}, Description: "one query on a pooled connection: a row of the seeded table, after a delay spent in the database (pg_sleep, SLEEP)"},
}

// Endpoints returns the contract's workload endpoints.
func Endpoints() []Endpoint {
	out := make([]Endpoint, len(endpoints))
	for i, e := range endpoints {
		out[i] = e
		out[i].Params = slices.Clone(e.Params)
	}
	return out
}

// LookupEndpoint returns the named workload endpoint.
func LookupEndpoint(name string) (Endpoint, bool) {
	for _, e := range endpoints {
		if e.Name == name {
			return e, true
		}
	}
	return Endpoint{}, false
}

// EndpointNames returns the contract's workload endpoints by name, in table order.
func EndpointNames() []string {
	names := make([]string, len(endpoints))
	for i, e := range endpoints {
		names[i] = e.Name
	}
	return names
}

// EndpointPath returns the path and encoded query (parameters sorted) for
// an endpoint name.
func EndpointPath(endpoint string, params map[string]string) string {
	path := "/api/" + strings.TrimPrefix(endpoint, "/")
	if e, ok := LookupEndpoint(endpoint); ok {
		path = e.Path
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
