package httpapi

import (
	"net/http"

	"github.com/threadbench/threadbench/internal/bench"
)

// DecodeSpec exposes the body decoder, with the body schema of POST /runs,
// to the external tests: the spec's validation catches most faults first,
// so HTTP tests rarely reach it.
func DecodeSpec(r *http.Request) (bench.RunSpec, error) {
	routes, err := loadSpecRoutes()
	if err != nil {
		return bench.RunSpec{}, err
	}
	return decodeSpec(r, routes.bodySchema(http.MethodPost, "/runs"))
}
