package contracttest

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// badParam is a request that breaks one parameter of the contract's table.
type badParam struct {
	endpoint string
	path     string   // with the query
	param    string   // the parameter the 400 must name
	mentions []string // what else its message must say: the range or the words
}

// badParams returns, for every parameter of every endpoint in the
// contract's table (internal/bench/endpoint.go), requests that break it:
// below and above an integer's range and not a number, or a word not in
// the list. Targets check parameters before anything else, so these get
// their 400 whether or not a downstream is configured.
func badParams() []badParam {
	var out []badParam
	for _, e := range bench.Endpoints() {
		for _, p := range e.Params {
			values, mentions := breaking(p)
			for _, v := range values {
				out = append(out, badParam{endpoint: e.Name, path: e.Path + "?" + p.Name + "=" + url.QueryEscape(v),
					param: p.Name, mentions: mentions})
			}
		}
	}
	return out
}

// breaking returns values that break p, and what a message about p must mention.
func breaking(p bench.Param) (values, mentions []string) {
	if len(p.Values) > 0 {
		return []string{"no-such-" + p.Name}, p.Values
	}
	return []string{strconv.Itoa(p.Min - 1), strconv.Itoa(p.Max + 1), "abc"},
		[]string{fmt.Sprint(p.Min), fmt.Sprint(p.Max)}
}

// paramDefault returns the default of an endpoint's parameter in the table.
func paramDefault(endpoint, param string) string {
	e, _ := bench.LookupEndpoint(endpoint)
	p, _ := e.Param(param)
	return p.Default
}
