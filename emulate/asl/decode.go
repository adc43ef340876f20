package asl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/ohler55/ojg/oj"
)

// errNotJSON is returned by DecodeJSON for text that is not one JSON value.
var errNotJSON = errors.New("asl: not valid JSON")

// DecodeJSON parses one JSON value into the generic data this package
// evaluates (map[string]any, []any, int64, float64, json.Number, string,
// bool, nil). It accepts what encoding/json accepts (duplicate names, the
// last one kept; invalid UTF-8 and lone surrogates as U+FFFD; nesting at
// most 10,000 deep), but for a number infinite as a float64 (1e400), which
// has no JSON form, and says what is wrong as encoding/json does.
// Integers of up to 18 digits are int64s; other numbers are what ojg's
// parser makes of them (float64, or json.Number beyond float64's digits).
// jsontext reads and checks the text; this builds the values.
func DecodeJSON(text []byte) (any, error) {
	d := decoders.Get().(*decoder)
	v, err := d.decode(text)
	decoders.Put(d)
	switch {
	case err == nil:
		return v, nil
	case !json.Valid(text):
		// Say what is wrong as encoding/json does (the decoder stops at
		// an infinite number, before any later syntax error).
		var probe any
		return nil, fmt.Errorf("%w: %v", errNotJSON, json.Unmarshal(text, &probe))
	}
	return nil, fmt.Errorf("%w: %v", errNotJSON, err)
}

var (
	// errSyntax is the decoder's error for text that is not JSON;
	// DecodeJSON words it as encoding/json does.
	errSyntax = errors.New("syntax error")
	// errInfinite is the decoder's error for a number out of float64's
	// range.
	errInfinite = errors.New("a number is out of the range of a 64-bit float")
)

// maxDepth is how deep encoding/json (and jsontext) let arrays and
// objects nest.
const maxDepth = 10000

// decoders are idle decoders, kept with their buffers.
var decoders = sync.Pool{New: func() any {
	d := &decoder{}
	d.dec = jsontext.NewDecoder(&d.src, decodeOptions...)
	return d
}}

// decodeOptions make jsontext accept what encoding/json accepts.
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decoder is a jsontext.Decoder reading one text at a time.
type decoder struct {
	src bytes.Reader
	dec *jsontext.Decoder
}

// decode parses text as one JSON value.
func (d *decoder) decode(text []byte) (any, error) {
	d.src.Reset(text)
	d.dec.Reset(&d.src, decodeOptions...)
	defer d.src.Reset(nil)
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.ReadToken(); err != io.EOF {
		return nil, errSyntax
	}
	return v, nil
}

// value reads the next JSON value.
func (d *decoder) value() (any, error) {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return nil, errSyntax
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for d.dec.PeekKind() != '}' {
			key, err := d.dec.ReadToken()
			if err != nil {
				return nil, errSyntax
			}
			name := key.String() // before the next read voids key
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err = d.dec.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.dec.PeekKind() != ']' {
			v, err := d.value()
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = d.dec.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return number(tok.String())
	case 't', 'f':
		return tok.Bool(), nil
	}
	return nil, nil // 'n': null
}

// number converts a JSON number: an integer of up to 18 digits is an
// int64, anything else as ojg converts it.
func number(text string) (any, error) {
	digits := text
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) <= 18 && isDigits(digits) {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, errSyntax
		}
		return n, nil
	}
	return ojgNumber([]byte(text))
}

// isDigits reports whether s is only decimal digits.
func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ojgNumber converts a number that is not an integer of up to 18 digits
// as ojg's parser does: float64, or json.Number for one with more digits
// than a float64 holds. Such numbers are rare in documents. One ojg
// refuses (a zero with an exponent, 0e1) is a float64.
func ojgNumber(text []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = parseFloat(text)
		}
	}()
	if v, err = oj.Parse(text); err != nil {
		return parseFloat(text)
	}
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, errInfinite
	}
	return v, nil
}

// parseFloat converts a JSON number to a float64.
func parseFloat(text []byte) (any, error) {
	f, err := strconv.ParseFloat(string(text), 64)
	switch {
	case math.IsInf(f, 0):
		return nil, errInfinite
	case err != nil:
		return nil, errSyntax
	}
	return f, nil
}
