package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"gopkg.in/yaml.v3"
)

// The one strict decoder of the project: run specs and profiles, from YAML
// files, JSON files and JSON request bodies alike. Two small front ends
// (encoding/json's tokens, yaml.v3's nodes) build the same tree; one walker
// decodes it into the domain's types field by field, so that an unknown
// field, a value of the wrong type or a number out of range is reported with
// the field's JSON path and its line, the same way whatever the format.

// Decode reads a run spec from YAML or JSON. source names the input in
// messages (a file name, "request body"). Errors are EINVALID *Errors whose
// Field is the JSON path of the offending input.
func Decode(b []byte, source string) (bench.RunSpec, error) {
	var spec bench.RunSpec
	return spec, decodeDoc(b, source, reflect.ValueOf(&spec).Elem(), "")
}

// DecodeProfile reads a profile from YAML or JSON; see Decode. Fields
// are named as in a spec ("profile.stages[0].rate"), since the document is
// a spec's profile.
func DecodeProfile(b []byte, source string) (bench.Profile, error) {
	var p bench.Profile
	return p, decodeDoc(b, source, reflect.ValueOf(&p).Elem(), "profile")
}

// decodeDoc parses b (JSON when it starts with "{" and is valid JSON, else
// YAML, of which flow-style JSON-like text is a part) and decodes it into v.
// root is the field errors about the whole document name ("" for none).
func decodeDoc(b []byte, source string, v reflect.Value, root string) error {
	tree, err := parse(b)
	if err != nil {
		return bench.Errorf(bench.EINVALID, "%s: %v", source, err)
	}
	if tree == nil || tree.kind == nodeNull {
		return bench.Errorf(bench.EINVALID, "%s: empty document", source)
	}
	d := decoder{root: root, source: source}
	return d.decode(tree, v, root)
}

type nodeKind int

const (
	nodeNull nodeKind = iota
	nodeScalar
	nodeMapping
	nodeSequence
)

// node is a parsed value, whatever the format it came from.
type node struct {
	kind  nodeKind
	text  string // scalar text
	str   bool   // the scalar is a string, not a number or a boolean
	keys  []string
	vals  []*node // mapping values, in keys' order
	items []*node // sequence items
	line  int
}

func (n *node) describe() string {
	switch n.kind {
	case nodeMapping:
		return "an object"
	case nodeSequence:
		return "a list"
	case nodeNull:
		return "null"
	}
	if n.str {
		return strconv.Quote(n.text)
	}
	return n.text
}

func parse(b []byte) (*node, error) {
	if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return parseJSON(trimmed)
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && (t[0] == '{' || t[0] == '[') && looksLikeJSON(t) {
		var v any
		err := json.Unmarshal(t, &v)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("not valid JSON at offset %d: %v", syntax.Offset, err)
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty
	}
	return fromYAML(doc.Content[0])
}

// looksLikeJSON tells JSON with a syntax error apart from YAML in flow style:
// JSON quotes its keys.
func looksLikeJSON(b []byte) bool {
	rest := bytes.TrimLeft(b[1:], " \t\r\n")
	return len(rest) > 0 && (rest[0] == '"' || rest[0] == '}')
}

// fromYAML converts a yaml.v3 node, resolving aliases.
func fromYAML(y *yaml.Node) (*node, error) {
	if y.Kind == yaml.AliasNode {
		y = y.Alias
	}
	n := &node{line: y.Line}
	switch y.Kind {
	case yaml.MappingNode:
		n.kind = nodeMapping
		for i := 0; i+1 < len(y.Content); i += 2 {
			key := y.Content[i].Value
			if slices.Contains(n.keys, key) {
				return nil, fmt.Errorf("line %d: key %q appears twice", y.Content[i].Line, key)
			}
			val, err := fromYAML(y.Content[i+1])
			if err != nil {
				return nil, err
			}
			n.keys, n.vals = append(n.keys, key), append(n.vals, val)
		}
	case yaml.SequenceNode:
		n.kind = nodeSequence
		for _, item := range y.Content {
			v, err := fromYAML(item)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
	case yaml.ScalarNode:
		n.kind, n.text = nodeScalar, y.Value
		switch y.ShortTag() {
		case "!!null":
			n.kind = nodeNull
		case "!!int", "!!float", "!!bool":
		default:
			n.str = true
		}
	default:
		return nil, fmt.Errorf("line %d: unsupported YAML node", y.Line)
	}
	return n, nil
}

// parseJSON builds the tree from encoding/json's tokens, numbers kept as
// text, lines counted from the token offsets.
func parseJSON(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	p := jsonParser{dec: dec, src: b}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the top-level value")
	}
	return n, nil
}

type jsonParser struct {
	dec *json.Decoder
	src []byte
}

func (p *jsonParser) line() int {
	off := min(int(p.dec.InputOffset()), len(p.src))
	return bytes.Count(p.src[:off], []byte("\n")) + 1
}

func (p *jsonParser) value() (*node, error) {
	line := p.line()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{line: line}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return n, p.object(n)
		}
		return n, p.array(n)
	case string:
		n.kind, n.text, n.str = nodeScalar, t, true
	case json.Number:
		n.kind, n.text = nodeScalar, t.String()
	case bool:
		n.kind, n.text = nodeScalar, strconv.FormatBool(t)
	case nil:
		n.kind = nodeNull
	}
	return n, nil
}

func (p *jsonParser) object(n *node) error {
	n.kind = nodeMapping
	for p.dec.More() {
		line := p.line()
		tok, err := p.dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // object keys are always strings
		if slices.Contains(n.keys, key) {
			return fmt.Errorf("line %d: key %q appears twice", line, key)
		}
		val, err := p.value()
		if err != nil {
			return err
		}
		n.keys, n.vals = append(n.keys, key), append(n.vals, val)
	}
	_, err := p.dec.Token() // '}'
	return err
}

func (p *jsonParser) array(n *node) error {
	n.kind = nodeSequence
	for p.dec.More() {
		item, err := p.value()
		if err != nil {
			return err
		}
		n.items = append(n.items, item)
	}
	_, err := p.dec.Token() // ']'
	return err
}

// textDecoder is implemented by domain types written as one string scalar
// (durations), or, for structs, either as a string or as an object (sleeps).
type textDecoder interface {
	DecodeText(s string) error
}

// decoder walks a tree into Go values. root is the path of the document
// itself ("" for a spec, "profile" for a profile); source names the input
// ("p.yaml", "request body").
type decoder struct{ root, source string }

func (d decoder) fail(n *node, path, format string, args ...any) error {
	return bench.FieldErrorf(path, "%s (%s line %d)", fmt.Sprintf(format, args...), d.source, n.line)
}

func (d decoder) decode(n *node, v reflect.Value, path string) error {
	if n.kind == nodeNull {
		// A field is given or left out; null would be a third way to say
		// nothing, which the API's schema does not allow either.
		return d.fail(n, path, "must not be null (leave the field out instead)")
	}
	if td, ok := v.Addr().Interface().(textDecoder); ok && (n.kind == nodeScalar || v.Kind() != reflect.Struct) {
		if n.kind != nodeScalar || !n.str {
			return d.fail(n, path, "must be a string such as \"30s\", got %s", n.describe())
		}
		if err := td.DecodeText(n.text); err != nil {
			return d.fail(n, path, "%v", err)
		}
		return nil
	}
	if p, ok := v.Addr().Interface().(*bench.Profile); ok && n.kind == nodeScalar {
		if !n.str {
			return d.fail(n, path, "must be a built-in profile's name or a profile object, got %s", n.describe())
		}
		*p = bench.Profile{Name: n.text}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return d.decode(n, v.Elem(), path)
	case reflect.Struct:
		return d.decodeStruct(n, v, path)
	case reflect.Slice:
		return d.decodeSlice(n, v, path)
	case reflect.Map:
		return d.decodeMap(n, v, path)
	}
	return d.decodeScalar(n, v, path)
}

// ownSourceFields are what a service of one's own is built from: a spec
// sent to the daemon may not give them (the CLI's --jar may).
var ownSourceFields = map[string]bool{"jar": true, "image": true, "dockerfile": true}

func (d decoder) decodeStruct(n *node, v reflect.Value, path string) error {
	if n.kind != nodeMapping {
		return d.fail(n, path, "must be an object, got %s", n.describe())
	}
	fields := jsonFields(v.Type())
	for i, key := range n.keys {
		sub := joinPath(path, key)
		idx, ok := fields[key]
		if !ok && path == "" && ownSourceFields[key] {
			return d.fail(n.vals[i], sub, "a jar, an image or a Dockerfile is never taken from a request: the daemon's configuration defines them (targets:), and a spec names the target it defines")
		}
		if !ok {
			return d.fail(n.vals[i], sub, "unknown field; known fields: %s", strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		}
		if err := d.decode(n.vals[i], v.Field(idx), sub); err != nil {
			return err
		}
	}
	return nil
}

func (d decoder) decodeSlice(n *node, v reflect.Value, path string) error {
	if n.kind != nodeSequence {
		return d.fail(n, path, "must be a list, got %s", n.describe())
	}
	v.Set(reflect.MakeSlice(v.Type(), len(n.items), len(n.items)))
	for i, item := range n.items {
		if err := d.decode(item, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// decodeMap reads string maps (query parameters, settings), taking numbers
// and booleans as their text: YAML reads "duration: 500" as a number.
// integerText is an integer as a document writes it.
var integerText = regexp.MustCompile(`^-?[0-9]+$`)

func (d decoder) decodeMap(n *node, v reflect.Value, path string) error {
	if n.kind != nodeMapping {
		return d.fail(n, path, "must be an object, got %s", n.describe())
	}
	if v.Type().Key().Kind() != reflect.String || (v.Type().Elem().Kind() != reflect.String && v.Type().Elem().Kind() != reflect.Slice) {
		return d.fail(n, path, "cannot be decoded (unsupported map type %s)", v.Type())
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
	for i, key := range n.keys {
		val := n.vals[i]
		if val.kind == nodeNull {
			return d.fail(val, joinPath(path, key), "must not be null (leave the field out instead)")
		}
		if v.Type().Elem().Kind() == reflect.Slice {
			// A header: each name with its list of values.
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(val, elem, joinPath(path, key)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), elem)
			continue
		}
		// A value is text, or an integer read as its digits (YAML's
		// duration: 500); not a boolean, not a fraction.
		if val.kind != nodeScalar || !val.str && !integerText.MatchString(val.text) {
			return d.fail(val, joinPath(path, key), "must be a string or an integer, got %s", val.describe())
		}
		m.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), reflect.ValueOf(val.text).Convert(v.Type().Elem()))
	}
	v.Set(m)
	return nil
}

func (d decoder) decodeScalar(n *node, v reflect.Value, path string) error {
	if n.kind != nodeScalar {
		return d.fail(n, path, "must be %s, got %s", kindName(v.Kind()), n.describe())
	}
	switch v.Kind() {
	case reflect.String:
		if !n.str {
			return d.fail(n, path, "must be a string, got %s", n.text)
		}
		v.SetString(n.text)
		return nil
	case reflect.Bool:
		b, ok := map[string]bool{"true": true, "True": true, "TRUE": true, "false": false, "False": false, "FALSE": false}[n.text]
		if n.str || !ok {
			return d.fail(n, path, "must be true or false, got %s", n.describe())
		}
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return d.decodeInt(n, v, path)
	case reflect.Float32, reflect.Float64:
		return d.decodeFloat(n, v, path)
	}
	return d.fail(n, path, "cannot be decoded (unsupported type %s)", v.Type())
}

func (d decoder) decodeInt(n *node, v reflect.Value, path string) error {
	i, err := strconv.ParseInt(n.text, 10, v.Type().Bits())
	if n.str || errors.Is(err, strconv.ErrSyntax) {
		return d.fail(n, path, "must be an integer, got %s", n.describe())
	}
	if err != nil {
		return d.fail(n, path, "must be an integer from %d to %d, got %s", int64(math.MinInt64)>>(64-v.Type().Bits()), int64(math.MaxInt64)>>(64-v.Type().Bits()), n.text)
	}
	v.SetInt(i)
	return nil
}

func (d decoder) decodeFloat(n *node, v reflect.Value, path string) error {
	switch strings.ToLower(strings.TrimLeft(n.text, "+-")) {
	case ".inf", ".nan": // YAML's spellings
		if !n.str {
			return d.fail(n, path, "must be a finite number, got %s", n.text)
		}
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if n.str || errors.Is(err, strconv.ErrSyntax) {
		return d.fail(n, path, "must be a number, got %s", n.describe())
	}
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return d.fail(n, path, "must be a finite number, got %s", n.text)
	}
	v.SetFloat(f)
	return nil
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "an integer"
}

// jsonFields maps the JSON names of t's exported fields to their indexes.
func jsonFields(t reflect.Type) map[string]int {
	fields := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = i
	}
	return fields
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// ReadProfileFile reads a profile from a YAML or JSON file with the strict
// decoder. Errors are EINVALID *Errors naming the field and the file.
func ReadProfileFile(path string) (bench.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return bench.Profile{}, bench.FieldErrorf("profile", "read profile file: %v", err)
	}
	return DecodeProfile(b, path)
}
