package jrebase

// ParseLDD is parseLDD, for the external tests.
var ParseLDD = parseLDD

// ReadProgress is readProgress, for the external tests.
var ReadProgress = readProgress
