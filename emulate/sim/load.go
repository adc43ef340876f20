package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load reads a scenario file (YAML, or JSON, which is YAML too) over
// Default and validates it. Every problem is a *FieldError naming the file
// and the field: an unknown field, a value of the wrong type, a value out
// of range.
func Load(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("sim: read scenario: %w", err)
	}
	return Parse(path, data)
}

// Parse is Load on data already read; file names it in errors.
func Parse(file string, data []byte) (Scenario, error) {
	s := Default()
	if err := decodeStrict(data, &s); err != nil {
		return Scenario{}, inFile(file, err)
	}
	if err := s.Validate(); err != nil {
		return Scenario{}, inFile(file, err)
	}
	return s, nil
}

// inFile sets File on every FieldError in err.
func inFile(file string, err error) error {
	var errs []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var fe *FieldError
		if errors.As(e, &fe) {
			fe.File = file
		}
	}
	return err
}

// decodeStrict decodes one YAML document onto out, field by field, so
// that an unknown field or a value of the wrong type is reported with its
// path rather than only a line number.
func decodeStrict(data []byte, out *Scenario) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &FieldError{Path: "(document)", Problem: "empty: want a mapping of scenario fields"}
		}
		return &FieldError{Path: "(document)", Problem: "not YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return &FieldError{Path: "(document)", Problem: "holds more than one YAML document"}
	}
	return decodeNode(doc.Content[0], reflect.ValueOf(out).Elem(), "")
}

var durationType = reflect.TypeFor[time.Duration]()

// decodeNode decodes n into v; path is v's path for errors.
func decodeNode(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case v.Kind() == reflect.Struct:
		return decodeStruct(n, v, path)
	case v.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return &FieldError{Path: path, Problem: fmt.Sprintf("line %d: want a list, got %s", n.Line, describe(n))}
		}
		list := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, list.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(list)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return &FieldError{Path: path, Problem: fmt.Sprintf("line %d: want %s, got %s", n.Line, kindName(v.Type()), describe(n))}
	}
	if v.Type() == durationType && n.Tag == "!!str" {
		d, err := time.ParseDuration(n.Value)
		if err != nil {
			return &FieldError{Path: path, Problem: fmt.Sprintf("line %d: %q is not a duration (e.g. 90s, 30m, 1h30m)", n.Line, n.Value)}
		}
		v.SetInt(int64(d))
		return nil
	}
	if v.Type() == durationType || n.Decode(v.Addr().Interface()) != nil {
		return &FieldError{Path: path, Problem: fmt.Sprintf("line %d: %q is not %s", n.Line, n.Value, kindName(v.Type()))}
	}
	return nil
}

// decodeStruct decodes a mapping into struct v, rejecting unknown and
// repeated keys.
func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return &FieldError{Path: orDocument(path), Problem: fmt.Sprintf("line %d: want a mapping, got %s", n.Line, describe(n))}
	}
	fields := map[string]int{}
	var known []string
	for i := range v.NumField() {
		if name := tagName(v.Type().Field(i)); name != "" {
			fields[name] = i
			known = append(known, name)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i].Value, n.Content[i+1]
		at := key
		if path != "" {
			at = path + "." + key
		}
		idx, ok := fields[key]
		if !ok {
			slices.Sort(known)
			return &FieldError{Path: at, Problem: fmt.Sprintf("line %d: unknown field (known: %s)", n.Content[i].Line, strings.Join(known, ", "))}
		}
		if seen[key] {
			return &FieldError{Path: at, Problem: fmt.Sprintf("line %d: given twice", n.Content[i].Line)}
		}
		seen[key] = true
		if err := decodeNode(value, v.Field(idx), at); err != nil {
			return err
		}
	}
	return nil
}

// tagName is a struct field's yaml name.
func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// kindName says what a field of type t takes.
func kindName(t reflect.Type) string {
	switch {
	case t == durationType:
		return "a duration (e.g. 90s, 30m, 1h30m)"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Float64:
		return "a number"
	default:
		return "an integer"
	}
}

// describe names a node's kind for errors.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("%q", n.Value)
	}
}

func orDocument(path string) string {
	if path == "" {
		return "(document)"
	}
	return path
}
