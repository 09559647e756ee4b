package httpapi

// DecodeSpec exposes the body decoder to the external tests.
var DecodeSpec = decodeSpec
