// Package api holds the daemon's HTTP contract: openapi.yaml, embedded so
// that the daemon serves and validates against the very document in the tree,
// and the wire types its answers are (problem documents, lists), so that a
// client decodes them without importing the server.
package api

import _ "embed"

// Spec is api/openapi.yaml (OpenAPI 3.0.3).
//
//go:embed openapi.yaml
var Spec []byte
