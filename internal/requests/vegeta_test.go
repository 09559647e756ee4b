package requests_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/requests"
	"github.com/threadbench/threadbench/internal/spec"
)

func TestReadVegeta(t *testing.T) {
	for _, tt := range []struct {
		name string
		file string
		want []bench.Request
	}{
		// The HTTP format: the host dropped, headers as written, a body
		// file read from the targets file's directory, comments skipped.
		{"HTTP", `# the shop
GET http://shop:8080/api/light

POST http://shop:8080/orders?dry=1
Content-Type: application/json
X-Trace: a
X-Trace: b
@order.json
GET https://elsewhere/api/heavy?duration=5
`, []bench.Request{
			{URI: "/api/light", Weight: 1},
			{URI: "/orders?dry=1", Method: "POST", Weight: 1, Body: "{\"id\": 7}\n",
				Header: map[string][]string{"Content-Type": {"application/json"}, "X-Trace": {"a", "b"}}},
			{URI: "/api/heavy?duration=5", Weight: 1},
		}},
		// Repeated lines are one request weighted by their count, as
		// vegeta's round-robin over the lines sends them.
		{"Weights", "GET http://x/a\nGET http://x/b\nGET http://x/a\nGET http://x/a\n",
			[]bench.Request{{URI: "/a", Weight: 3}, {URI: "/b", Weight: 1}}},
		// The same method and URI with different bodies: named apart.
		{"SameLabel", "{\"method\":\"PUT\",\"url\":\"http://x/k\",\"body\":\"YQ==\"}\n{\"method\":\"PUT\",\"url\":\"http://x/k\",\"body\":\"Yg==\"}\n",
			[]bench.Request{{URI: "/k", Method: "PUT", Body: "a", Weight: 1}, {URI: "/k", Method: "PUT", Body: "b", Weight: 1, Name: "PUT /k #2"}}},
		// The JSON-lines format: base64 bodies, headers as lists.
		{"JSON", `{"method":"GET","url":"http://x/api/light"}

{"method":"POST","url":"http://x/orders","body":"e30=","header":{"Content-Type":["application/json"]}}
`, []bench.Request{
			{URI: "/api/light", Weight: 1},
			{URI: "/orders", Method: "POST", Body: "{}", Weight: 1, Header: map[string][]string{"Content-Type": {"application/json"}}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := requests.ReadVegeta(strings.NewReader(tt.file), "testdata")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadVegetaErrors(t *testing.T) {
	for _, tt := range []struct {
		name, file, want string
	}{
		// a first line that is no METHOD URL
		{"NoMethod", "http://x/a\n", `1: want METHOD URL, got "http://x/a"`},
		// a malformed header, its line named
		{"BadHeader", "GET http://x/a\n\nGET http://x/b\nX-Broken\n", `4: want a header Name: value, got "X-Broken"`},
		// a URL that does not parse
		{"BadURL", "GET http://x/a\nGET ::nope\n", `2: bad URL "::nope"`},
		// a body file that does not exist
		{"NoBody", "POST http://x/a\n@missing.json\n", "2: body: open missing.json"},
		// a JSON line that is not an object, its line named
		{"BadJSON", "{\"method\":\"GET\",\"url\":\"http://x/a\"}\n\n{\"method\":\"GET\",\n", "3: not a vegeta JSON target"},
		// a JSON target without its method
		{"JSONNoMethod", `{"url":"http://x/a"}`, "1: a target needs a method"},
		// a field vegeta does not have
		{"JSONUnknownField", `{"method":"GET","url":"http://x/a","headers":{}}`, `1: not a vegeta JSON target: json: unknown field "headers"`},
		// nothing but comments
		{"Empty", "# nothing\n", "no targets"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := requests.ReadVegeta(strings.NewReader(tt.file), "testdata")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReadVegetaFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "targets.txt")
	if err := os.WriteFile(path, []byte("GET http://x/a\n\nbad line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := requests.ReadVegetaFile(path)
	if err == nil || !strings.Contains(err.Error(), path+":3: want METHOD URL") || bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("error %v, want an invalid-input error naming %s:3", err, path)
	}
}

// TestRequestsPass: what the reader makes passes spec.Prepare.
func TestRequestsPass(t *testing.T) {
	reqs, err := requests.ReadVegeta(strings.NewReader("GET http://x/api/light\nPOST http://x/api/light\nX-A: 1\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	rs := bench.RunSpec{Targets: []string{"go"}, Profile: bench.Profile{Name: "smoke"}, Workload: bench.Workload{Requests: reqs}}
	if err := spec.Prepare(&rs, bench.Catalog{Targets: []bench.TargetInfo{{Name: "go", Kind: "go"}}, Builtins: builtin.Set}); err != nil {
		t.Fatal(err)
	}
}
