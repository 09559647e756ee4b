package httpapi

// DecodeJSON exposes the strict body decoder to the external tests: the
// spec's validation catches most faults first, so HTTP tests rarely reach it.
var DecodeSpec = decodeSpec
