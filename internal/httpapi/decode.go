package httpapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/spec"
)

// decodeSpec reads a run spec from a JSON request body with the domain's
// strict decoder (spec.Decode), the same one that reads spec files:
// unknown fields, nulls, values of the wrong type, numbers out of range and
// malformed JSON are EINVALID errors that name the field.
func decodeSpec(r *http.Request) (bench.RunSpec, error) {
	if !isJSON(r.Header.Get("Content-Type")) {
		return bench.RunSpec{}, bench.FieldErrorf("Content-Type", "must be application/json, got %q", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return bench.RunSpec{}, bench.Errorf(bench.ETOOLARGE, "request body is larger than %d bytes", tooLarge.Limit)
	case err != nil:
		return bench.RunSpec{}, bench.Errorf(bench.EINVALID, "reading request body: %v", err)
	case len(strings.TrimSpace(string(body))) == 0:
		return bench.RunSpec{}, bench.Errorf(bench.EINVALID, "request body is empty")
	}
	return spec.Decode(body, "request body")
}

// isJSON reports whether a Content-Type is JSON.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
