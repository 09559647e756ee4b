package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/threadbench/threadbench/internal/bench"
)

// decodeSpec reads a run spec from a JSON request body with the domain's
// strict decoder (bench.DecodeSpec), the same one that reads spec files:
// unknown fields, values of the wrong type, numbers out of range and
// malformed JSON are EINVALID errors that name the field. Before that, the
// body is held to its schema in api/openapi.yaml where the decoder is more
// lenient than the contract (contractFault).
func decodeSpec(r *http.Request, schema *openapi3.Schema) (bench.RunSpec, error) {
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
	if err := contractFault(body, schema); err != nil {
		return bench.RunSpec{}, err
	}
	return bench.DecodeSpec(body, "request body")
}

// contractFault checks a JSON body against schema where the domain's
// decoder, shared with YAML files, takes more than the contract: it reads
// null as "not given" (YAML's empty value) and 0 or 1 as a boolean. It
// returns nil when the body is not JSON at all: the decoder says what is
// wrong with it then.
func contractFault(body []byte, schema *openapi3.Schema) error {
	if schema == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	if path, reason := firstFault(v, schema, nil); path != nil {
		return bench.FieldErrorf(jsonPath(path), "%s", reason)
	}
	return nil
}

// firstFault walks v along schema and returns the path segments of the
// first null the schema does not allow or the first boolean that is not
// one, and what is wrong with it; nil when there is none. Properties the
// schema does not know are left to the decoder, which refuses them.
func firstFault(v any, s *openapi3.Schema, path []string) ([]string, string) {
	if s == nil {
		return nil, ""
	}
	if _, isBool := v.(bool); !isBool && v != nil && s.Type.Is("boolean") && len(s.OneOf) == 0 {
		return append(path, ""), fmt.Sprintf("must be true or false, got %v", v)
	}
	switch x := v.(type) {
	case nil:
		if !nullable(s) {
			return append(path, ""), "must not be null; leave the field out instead" // "" marks the root, dropped by jsonPath
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, reason := firstFault(x[k], propertySchema(s, k), append(slices.Clip(path), k)); p != nil {
				return p, reason
			}
		}
	case []any:
		items := branch(s, "array").Items
		for i, item := range x {
			if items == nil {
				break
			}
			if p, reason := firstFault(item, items.Value, append(slices.Clip(path), strconv.Itoa(i))); p != nil {
				return p, reason
			}
		}
	}
	return nil, ""
}

// nullable reports whether a schema, or one of its oneOf branches, allows null.
func nullable(s *openapi3.Schema) bool {
	if s.Nullable {
		return true
	}
	for _, b := range s.OneOf {
		if b.Value != nil && b.Value.Nullable {
			return true
		}
	}
	return false
}

// propertySchema returns the schema of an object's property: a declared
// property, else the additionalProperties schema, else nil.
func propertySchema(s *openapi3.Schema, name string) *openapi3.Schema {
	obj := branch(s, "object")
	if p := obj.Properties[name]; p != nil {
		return p.Value
	}
	if ap := obj.AdditionalProperties.Schema; ap != nil {
		return ap.Value
	}
	return nil
}

// branch returns the oneOf branch of a schema for values of a JSON type,
// or the schema itself.
func branch(s *openapi3.Schema, jsonType string) *openapi3.Schema {
	for _, b := range s.OneOf {
		if b.Value != nil && b.Value.Type.Is(jsonType) {
			return b.Value
		}
	}
	return s
}

// isJSON reports whether a Content-Type is JSON.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
