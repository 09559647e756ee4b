package reference

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// document is api/openapi.yaml as YAML nodes, which keep the document's
// order of paths and fields.
type document struct{ root *yaml.Node }

func parse(openapi []byte) (document, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(openapi, &n); err != nil {
		return document{}, fmt.Errorf("api/openapi.yaml: %w", err)
	}
	if len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode {
		return document{}, fmt.Errorf("api/openapi.yaml: not a mapping")
	}
	return document{n.Content[0]}, nil
}

// get is the value of key in a mapping node, nil when absent.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// pairs are a mapping node's keys and values in the document's order.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

// text is a scalar's value, "" for anything else.
func text(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// resolve follows a $ref inside the document.
func (d document) resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		ref := text(get(n, "$ref"))
		if !strings.HasPrefix(ref, "#/") {
			return n
		}
		n = d.root
		for _, key := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			n = get(n, key)
		}
	}
	return n
}

// refName is the schema a $ref names, "" when it is not one.
func refName(n *yaml.Node) string {
	ref := text(get(n, "$ref"))
	return ref[strings.LastIndex(ref, "/")+1:]
}

var methods = []string{"get", "head", "post", "put", "patch", "delete"}

// API renders the endpoints: a table of them, then each with its
// parameters, body and answers.
func API(d document) []byte {
	var b bytes.Buffer
	b.WriteString(generatedBy)
	fmt.Fprintf(&b, "# The HTTP API\n\n%s %s, from `api/openapi.yaml` (the daemon serves it at `GET /openapi.yaml`). Every error is an `application/problem+json` document naming the field at fault.\n\n",
		text(get(get(d.root, "info"), "title")), text(get(get(d.root, "info"), "version")))
	type op struct{ method, path string }
	var ops []op
	b.WriteString("| Method | Path | What it does |\n|---|---|---|\n")
	for _, p := range pairs(get(d.root, "paths")) {
		for _, m := range methods {
			if o := get(p[1], m); o != nil {
				ops = append(ops, op{m, p[0].Value})
				fmt.Fprintf(&b, "| %s | [`%s`](#%s) | %s |\n", strings.ToUpper(m), p[0].Value, anchor(m, p[0].Value), cell(text(get(o, "summary"))))
			}
		}
	}
	for _, o := range ops {
		item := get(get(d.root, "paths"), o.path)
		operation := get(item, o.method)
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n## %s %s\n\n%s\n", anchor(o.method, o.path), strings.ToUpper(o.method), o.path, text(get(operation, "summary")))
		if desc := strings.TrimSpace(text(get(operation, "description"))); desc != "" {
			fmt.Fprintf(&b, "\n%s\n", desc)
		}
		params := append(slices.Clone(items(get(item, "parameters"))), items(get(operation, "parameters"))...)
		if len(params) > 0 {
			b.WriteString("\n| Parameter | In | Type | Required | Description |\n|---|---|---|---|---|\n")
			for _, p := range params {
				p = d.resolve(p)
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", text(get(p, "name")), text(get(p, "in")),
					typeOf(get(p, "schema")), yesNo(text(get(p, "required")) == "true"), cell(text(get(p, "description"))))
			}
		}
		if body := get(get(get(get(operation, "requestBody"), "content"), "application/json"), "schema"); body != nil {
			fmt.Fprintf(&b, "\nBody: %s\n", typeOf(body))
		}
		b.WriteString("\n| Answer | Description |\n|---|---|\n")
		for _, r := range pairs(get(operation, "responses")) {
			fmt.Fprintf(&b, "| %s | %s |\n", r[0].Value, cell(text(get(d.resolve(r[1]), "description"))))
		}
	}
	return b.Bytes()
}

// items are a sequence node's items, nil for anything else.
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func anchor(method, path string) string {
	r := strings.NewReplacer("/", "-", "{", "", "}", "", ".", "")
	return method + r.Replace(path)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// cell is a description fit for a table cell: its first paragraph, on one
// line, pipes escaped.
func cell(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n\n")
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// typeOf names a schema's type: a link to a named schema, an array of one,
// or its JSON type.
func typeOf(s *yaml.Node) string {
	if name := refName(s); name != "" {
		return fmt.Sprintf("[%s](spec.md#%s)", name, strings.ToLower(name))
	}
	switch t := text(get(s, "type")); t {
	case "array":
		return "array of " + typeOf(get(s, "items"))
	case "":
		if one := get(s, "oneOf"); one != nil {
			var names []string
			for _, n := range one.Content {
				names = append(names, typeOf(n))
			}
			return strings.Join(names, " or ")
		}
		return "any"
	default:
		return t
	}
}

// Spec renders the RunSpec schema and every schema it reaches, a table of
// fields each.
func Spec(d document) ([]byte, error) {
	schemas := get(get(d.root, "components"), "schemas")
	if get(schemas, "RunSpec") == nil {
		return nil, fmt.Errorf("api/openapi.yaml has no RunSpec schema")
	}
	var b bytes.Buffer
	b.WriteString(generatedBy)
	b.WriteString("# A run spec's fields\n\nWhat `orchestrator run --spec FILE` reads (YAML or JSON) and `POST /runs` takes, from the `RunSpec` schema in `api/openapi.yaml` and the schemas it names. Fields left out get the defaults the stored run shows.\n")
	seen := map[string]bool{}
	queue := []string{"RunSpec"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		s := get(schemas, name)
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", name, strings.TrimSpace(text(get(s, "description"))))
		props := pairs(get(s, "properties"))
		if len(props) == 0 {
			continue
		}
		required := map[string]bool{}
		for _, r := range items(get(s, "required")) {
			required[r.Value] = true
		}
		b.WriteString("\n| Field | Type | Required | Description |\n|---|---|---|---|\n")
		for _, p := range props {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p[0].Value, typeOf(p[1]), yesNo(required[p[0].Value]), cell(text(get(p[1], "description"))))
			queue = append(queue, named(p[1])...)
		}
	}
	return b.Bytes(), nil
}

// named are the schemas a field's schema names, directly or as items.
func named(s *yaml.Node) []string {
	if name := refName(s); name != "" {
		return []string{name}
	}
	var out []string
	for _, key := range []string{"items", "additionalProperties"} {
		if n := get(s, key); n != nil && n.Kind == yaml.MappingNode {
			out = append(out, named(n)...)
		}
	}
	for _, n := range items(get(s, "oneOf")) {
		out = append(out, named(n)...)
	}
	return out
}
