package jfr

// ParseSummary exposes parseSummary to the tests.
var ParseSummary = parseSummary
