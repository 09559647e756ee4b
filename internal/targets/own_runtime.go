package targets

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// jvmInfoLine is Micrometer's jvm_info series, whose labels name the JVM
// that really runs: jvm_info{runtime="OpenJDK Runtime Environment",
// vendor="Eclipse Adoptium",version="21.0.5+11-LTS"} 1.0.
var (
	jvmInfoLine  = regexp.MustCompile(`^jvm_info\{(.*)\}`)
	jvmInfoLabel = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)
)

// jvmRuntime reads the Java runtime a service of one's own runs from its
// Prometheus exposition ("OpenJDK 21.0.5+11-LTS", as the built-in Java
// target's /info writes it), "" where it exposes none: the image says
// what it was built on, this what the JVM says it is.
func (in *Instance) jvmRuntime(ctx context.Context) string {
	url := in.MetricsURL()
	if url == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return runtimeOfExposition(io.LimitReader(resp.Body, 16<<20))
}

// runtimeOfExposition finds jvm_info in an exposition and names the
// runtime by its name (without " Runtime Environment") and version.
func runtimeOfExposition(r io.Reader) string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := jvmInfoLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range jvmInfoLabel.FindAllStringSubmatch(m[1], -1) {
			labels[l[1]] = l[2]
		}
		if labels["version"] == "" {
			return ""
		}
		name := strings.TrimSpace(strings.TrimSuffix(labels["runtime"], "Runtime Environment"))
		if name == "" {
			name = "Java"
		}
		return name + " " + labels["version"]
	}
	return ""
}
