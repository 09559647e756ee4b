package jmcrules

import (
	_ "embed"
	"strings"

	"github.com/threadbench/threadbench/internal/jdk"
)

// programSource is the program a host JDK runs on a recording: it loads
// the recording with JMC's parser, runs every rule JMC registers and
// writes their results as JSON.
//
//go:embed java/JmcRules.java
var programSource []byte

// programClass is the class the program's source declares.
const programClass = "JmcRules"

// program is the runner as a host JDK compiles it against JMC's jars,
// once per source, JDK and jars (their checksums name it): Java's
// single-file source launch would need no cache, but it compiles on every
// run, about 2 s of javac that a compiled class saves each time.
func program(jars []string) jdk.Program {
	var key strings.Builder
	for _, art := range Artifacts {
		key.WriteString(art.SHA1 + " ")
	}
	return jdk.Program{Name: "jmc-rules", Sources: map[string][]byte{programClass + ".java": programSource}, Main: programClass,
		Classpath: jars, Key: key.String()}
}
