// Package requests reads request lists into a workload's requests: vegeta
// targets files, in its HTTP format and its JSON-lines format. The host part
// of each URL is dropped: the requests go to whichever target is attacked.
// Identical requests are merged into one whose weight is how often the file
// lists it, so that the mix keeps the file's proportions as vegeta's
// round-robin over its lines does.
package requests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// ReadVegetaFile reads a vegeta targets file, in whichever of its formats
// it is written (JSON lines when its first line is an object). Errors name
// the file and line; relative body files (@path) are read from the working
// directory, as vegeta reads them, else from the targets file's directory.
func ReadVegetaFile(path string) ([]bench.Request, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, bench.Errorf(bench.EINVALID, "targets file: %v", err)
	}
	reqs, err := ReadVegeta(bytes.NewReader(b), filepath.Dir(path))
	if err != nil {
		return nil, bench.Errorf(bench.EINVALID, "%s:%v", path, err)
	}
	return reqs, nil
}

// ReadVegeta reads a vegeta targets file from r; dir is where relative body
// files are looked for after the working directory.
func ReadVegeta(r io.Reader, dir string) ([]bench.Request, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	var reqs []bench.Request
	if first := firstContent(lines); first >= 0 && strings.HasPrefix(lines[first], "{") {
		reqs, err = readJSONLines(lines)
	} else {
		reqs, err = readHTTP(lines, dir)
	}
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("1: no targets in the file")
	}
	return merge(reqs), nil
}

func readLines(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	return lines, sc.Err()
}

// firstContent is the index of the first line neither blank nor a comment.
func firstContent(lines []string) int {
	return slices.IndexFunc(lines, func(l string) bool { return l != "" && !strings.HasPrefix(l, "#") })
}

// lineError is an error at a line (from 1).
func lineError(n int, format string, args ...any) error {
	return fmt.Errorf("%d: %s", n, fmt.Sprintf(format, args...))
}

// jsonTarget is a line of vegeta's JSON format.
type jsonTarget struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body"` // base64
	Header map[string][]string `json:"header"`
}

func readJSONLines(lines []string) ([]bench.Request, error) {
	var reqs []bench.Request
	for i, line := range lines {
		if line == "" {
			continue
		}
		var t jsonTarget
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, lineError(i+1, "not a vegeta JSON target: %v", err)
		}
		switch {
		case t.Method == "":
			return nil, lineError(i+1, "a target needs a method")
		case t.URL == "":
			return nil, lineError(i+1, "a target needs a url")
		}
		r, err := request(t.Method, t.URL, i+1)
		if err != nil {
			return nil, err
		}
		r.Header, r.Body = t.Header, string(t.Body)
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// startsWithMethod is how vegeta tells a target's first line: a word of
// capitals and a space.
var startsWithMethod = regexp.MustCompile(`^[A-Z]+\s`)

// readHTTP reads vegeta's HTTP format: "METHOD URL", then header lines
// "Name: value", then optionally "@body-file", targets apart by blank
// lines or by the next "METHOD URL"; lines starting with # are comments.
func readHTTP(lines []string, dir string) ([]bench.Request, error) {
	var reqs []bench.Request
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		method, target, ok := strings.Cut(line, " ")
		if !ok || !startsWithMethod.MatchString(line) {
			return nil, lineError(i+1, "want METHOD URL, got %q", line)
		}
		r, err := request(method, strings.TrimSpace(target), i+1)
		if err != nil {
			return nil, err
		}
		if i, err = readHTTPTail(lines, i+1, dir, &r); err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// readHTTPTail reads a target's header and body lines from line i on and
// returns the index of its last line.
func readHTTPTail(lines []string, i int, dir string, r *bench.Request) (int, error) {
	for ; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "" || startsWithMethod.MatchString(line):
			return i - 1, nil
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "@"):
			body, err := readBody(line[1:], dir)
			if err != nil {
				return 0, lineError(i+1, "body: %v", err)
			}
			r.Body = string(body)
			return i, nil
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || value == "" {
			return 0, lineError(i+1, "want a header Name: value, got %q", line)
		}
		if r.Header == nil {
			r.Header = map[string][]string{}
		}
		r.Header[name] = append(r.Header[name], value) // as written: vegeta keeps case
	}
	return i, nil
}

// readBody reads a body file from the working directory, else from dir.
func readBody(path, dir string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil && !filepath.IsAbs(path) {
		if b2, err2 := os.ReadFile(filepath.Join(dir, path)); err2 == nil {
			return b2, nil
		}
	}
	return b, err
}

// request is a target's method and URL as a workload request: the URL's
// path and query, its host dropped.
func request(method, rawURL string, line int) (bench.Request, error) {
	u, err := url.ParseRequestURI(rawURL)
	if err != nil {
		return bench.Request{}, lineError(line, "bad URL %q: %v", rawURL, err)
	}
	uri := u.RequestURI()
	if !strings.HasPrefix(uri, "/") {
		return bench.Request{}, lineError(line, "bad URL %q: want http://host/path or /path", rawURL)
	}
	r := bench.Request{URI: uri}
	if method != "GET" {
		r.Method = method
	}
	return r, nil
}

// merge folds identical requests into one, weighted by how often they
// appear, in order of first appearance; requests that share a method and
// URI but differ otherwise are named apart ("POST /orders #2").
func merge(reqs []bench.Request) []bench.Request {
	var out []bench.Request
	seen := map[string]int{}
	for _, r := range reqs {
		key := fmt.Sprintf("%s %s %v %q", r.HTTPMethod(), r.URI, r.Header, r.Body)
		if i, ok := seen[key]; ok {
			out[i].Weight++
			continue
		}
		seen[key] = len(out)
		r.Weight = 1
		out = append(out, r)
	}
	byLabel := map[string]int{}
	for i := range out {
		label := out[i].Label()
		if byLabel[label]++; byLabel[label] > 1 {
			out[i].Name = fmt.Sprintf("%s #%d", label, byLabel[label])
		}
	}
	return out
}
