package jdk

// FindWith is Find with $JAVA_HOME and the candidate list injected.
func FindWith(javaHome string, candidates []string) (JDK, error) {
	return find(javaHome, candidates, minimum(MinMajor))
}

// FindMajorWith is FindMajor with $JAVA_HOME and the candidate list injected.
func FindMajorWith(javaHome string, candidates []string, major int) (JDK, error) {
	return find(javaHome, candidates, exactly(major))
}
