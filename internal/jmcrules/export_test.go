package jmcrules

// Decode is decode, for tests: it reads the program's output.
var Decode = decode

// FetchAll is fetchAll, for tests: it fills a directory with jars.
var FetchAll = fetchAll
