package message

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// pointer is a parsed RFC 6901 JSON pointer.
type pointer struct {
	text   string
	tokens []string
}

// parsePointer parses s, which starts with "/" (the whole document, "",
// names no key); "~1" stands for "/" and "~0" for "~", and no other "~" is
// allowed.
func parsePointer(s string) (pointer, error) {
	if !strings.HasPrefix(s, "/") {
		return pointer{}, fmt.Errorf("JSON pointer %q must start with \"/\"", s)
	}
	p := pointer{text: s}
	for raw := range strings.SplitSeq(s[1:], "/") {
		token, err := unescapeToken(raw)
		if err != nil {
			return pointer{}, fmt.Errorf("JSON pointer %q: %w", s, err)
		}
		p.tokens = append(p.tokens, token)
	}
	return p, nil
}

// unescapeToken turns "~1" into "/" and "~0" into "~", in that order of
// reading, so "~01" is "~1".
func unescapeToken(raw string) (string, error) {
	if !strings.Contains(raw, "~") {
		return raw, nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '~' {
			b.WriteByte(raw[i])
			continue
		}
		if i+1 == len(raw) || (raw[i+1] != '0' && raw[i+1] != '1') {
			return "", fmt.Errorf("bad escape at byte %d of %q: \"~\" must be followed by 0 or 1", i, raw)
		}
		b.WriteByte("~/"[raw[i+1]-'0'])
		i++
	}
	return b.String(), nil
}

// lookup evaluates p on the JSON text doc and returns the value it refers
// to.
func (p pointer) lookup(doc string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("body is not JSON: data after the top-level value")
	}
	for i, token := range p.tokens {
		at := p.prefix(i)
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[token]
			if !ok {
				return nil, fmt.Errorf("no member %q at %q", token, at)
			}
			v = next
		case []any:
			index, err := arrayIndex(token, len(node))
			if err != nil {
				return nil, fmt.Errorf("at %q: %w", at, err)
			}
			v = node[index]
		default:
			return nil, fmt.Errorf("at %q: cannot look up %q in %s", at, token, jsonKind(v))
		}
	}
	return v, nil
}

// prefix is the pointer's text up to (not including) token i.
func (p pointer) prefix(i int) string {
	end := 0
	for range i {
		end += 1 + strings.IndexByte(p.text[end+1:]+"/", '/')
	}
	return p.text[:end]
}

// arrayIndex reads an array index token: digits without leading zeros,
// within the array's length ("-", the element after the last, is never
// there).
func arrayIndex(token string, length int) (int, error) {
	if token == "" || (len(token) > 1 && token[0] == '0') || strings.TrimLeft(token, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an array index", token)
	}
	index, err := strconv.Atoi(token)
	if err != nil || index >= length {
		return 0, fmt.Errorf("index %s is past the end of an array of %d", token, length)
	}
	return index, nil
}

// jsonKind names the JSON type of a decoded value, with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// Pointer is a parsed RFC 6901 JSON pointer into a message body, for
// callers outside this package (routing rules, replay filters).
type Pointer struct{ p pointer }

// ParsePointer parses s, which starts with "/"; "~1" stands for "/" and
// "~0" for "~".
func ParsePointer(s string) (Pointer, error) {
	p, err := parsePointer(s)
	return Pointer{p}, err
}

// String is the pointer as written.
func (p Pointer) String() string { return p.p.text }

// Text returns the value p refers to in the JSON body as text: a string as
// is, a number or a boolean as written in JSON. ok is false when the body
// is not JSON, p refers to nothing, or the value is null, an object or an
// array.
func (p Pointer) Text(body string) (text string, ok bool) {
	v, err := p.p.lookup(body)
	if err != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}
