package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// decodeJSON decodes a request body into v strictly: unknown fields,
// trailing data and malformed JSON are EINVALID errors that say where.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return bench.Errorf(bench.EINVALID, "malformed JSON at offset %d: data after the top-level value", end)
	}
	return nil
}

// unknownFieldPrefix is how encoding/json reports a field that
// DisallowUnknownFields refuses; the package has no error type for it.
const unknownFieldPrefix = "json: unknown field "

// jsonError turns an encoding/json error into an *bench.Error.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return bench.Errorf(bench.ETOOLARGE, "request body is larger than %d bytes", tooLarge.Limit)
	case errors.Is(err, io.EOF):
		return bench.Errorf(bench.EINVALID, "request body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bench.Errorf(bench.EINVALID, "malformed JSON: unexpected end of input")
	case errors.As(err, &syntax):
		return bench.Errorf(bench.EINVALID, "malformed JSON at offset %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ):
		return typeError(typ)
	}
	msg := err.Error()
	if i := strings.Index(msg, unknownFieldPrefix); i >= 0 {
		name, uerr := strconv.Unquote(msg[i+len(unknownFieldPrefix):])
		if uerr == nil {
			return bench.FieldErrorf(name, "unknown field")
		}
	}
	// What is left comes from the domain's own decoders (durations, profiles),
	// whose messages are written for users.
	return bench.Errorf(bench.EINVALID, "%s", msg)
}

func typeError(typ *json.UnmarshalTypeError) error {
	if typ.Field == "" {
		return bench.Errorf(bench.EINVALID, "request body must be %s, got %s", jsonKind(typ.Type), typ.Value)
	}
	return bench.FieldErrorf(typ.Field, "must be %s, got %s", jsonKind(typ.Type), typ.Value)
}

// jsonKind names the JSON kind a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}
