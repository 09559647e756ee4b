package jdk

// FindWith is Find with $JAVA_HOME and the candidate list injected.
var FindWith = find
