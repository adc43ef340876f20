package replay

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/park/lotindex"
)

// None, as a Filter's Breaker or ErrorType, matches a message without one,
// as in `redrive parked`.
const None = lotindex.None

// Filter selects the parked messages a replay moves. Every field that is
// set must match; the zero Filter selects every parked message.
type Filter struct {
	// Breaker is the breaker key the message went through; None: none.
	Breaker string `json:"breaker,omitempty"`
	// Reason is the class of the park reason, as lotindex.ReasonClass
	// gives it: "poison", "exhausted", "table unavailable"...
	Reason string `json:"reason,omitempty"`
	// ErrorType is the error type of the last failure (see
	// park.Record.ErrorType); None: a message without one.
	ErrorType string `json:"errorType,omitempty"`
	// Since and Until bound the parked time: Since <= parkedAt < Until.
	// A zero bound is open.
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	// Body lists fields of the body that must hold given values.
	Body []BodyField `json:"body,omitempty"`
}

// Validate reports what is wrong with f: bounds out of order.
func (f Filter) Validate() error {
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return fmt.Errorf("replay: filter: since %s is not before until %s", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	}
	for _, b := range f.Body {
		if b.pointer == nil {
			return errors.New("replay: filter: a body field without a pointer; make it with ParseBodyField")
		}
	}
	return nil
}

// Match reports whether f selects the parked message p.
func (f Filter) Match(p Parked) bool {
	rec := p.Record
	switch {
	case !matchValue(f.Breaker, rec.BreakerKey),
		f.Reason != "" && lotindex.ReasonClass(rec.Reason) != f.Reason,
		!matchValue(f.ErrorType, rec.ErrorType()),
		!f.Since.IsZero() && rec.ParkedAt.Before(f.Since),
		!f.Until.IsZero() && !rec.ParkedAt.Before(f.Until):
		return false
	}
	for _, b := range f.Body {
		if !b.Match(p.Message.Body) {
			return false
		}
	}
	return true
}

// matchValue reports whether a filter value selects have: "" selects
// anything, None an empty one.
func matchValue(want, have string) bool {
	switch want {
	case "":
		return true
	case None:
		return have == ""
	}
	return want == have
}

// String is f as `redrive replay` flags, e.g.
// `--breaker orders --reason poison --body /tenant=acme`; "everything" for
// the zero Filter.
func (f Filter) String() string {
	var parts []string
	add := func(name, value string) {
		if value != "" {
			parts = append(parts, "--"+name+" "+quoteArg(value))
		}
	}
	add("breaker", f.Breaker)
	add("reason", f.Reason)
	add("error-type", f.ErrorType)
	if !f.Since.IsZero() {
		add("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		add("until", f.Until.UTC().Format(time.RFC3339Nano))
	}
	for _, b := range f.Body {
		add("body", b.String())
	}
	if len(parts) == 0 {
		return "everything"
	}
	return strings.Join(parts, " ")
}

// quoteArg quotes a value that a shell would split.
func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#") || strings.HasPrefix(s, "~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// BodyField is a test on a message body: the value a JSON pointer refers
// to equals Value, compared as text (message.Pointer.Text): a string as
// is, a number or a boolean as written in the body (3 is not 3.0). A body
// that is not JSON, or a pointer that refers to nothing, null, an object
// or an array, never matches.
type BodyField struct {
	pointer *message.Pointer
	// Value is the text the field must hold.
	Value string
}

// ParseBodyField reads "/pointer=value": the pointer up to the first '='
// (a pointer whose keys hold '=' cannot be given), the value after it,
// possibly empty.
func ParseBodyField(s string) (BodyField, error) {
	text, value, found := strings.Cut(s, "=")
	if !found {
		return BodyField{}, fmt.Errorf("body field %q: want /pointer=value, e.g. /tenant/id=acme", s)
	}
	p, err := message.ParsePointer(text)
	if err != nil {
		return BodyField{}, fmt.Errorf("body field %q: %w", s, err)
	}
	return BodyField{pointer: &p, Value: value}, nil
}

// Pointer is the field's JSON pointer as written.
func (b BodyField) Pointer() string {
	if b.pointer == nil {
		return ""
	}
	return b.pointer.String()
}

// Match reports whether body holds the field's value.
func (b BodyField) Match(body string) bool {
	if b.pointer == nil {
		return false
	}
	text, ok := b.pointer.Text(body)
	return ok && text == b.Value
}

// String is the field as ParseBodyField reads it.
func (b BodyField) String() string { return b.Pointer() + "=" + b.Value }

// MarshalText writes the field as String, so a Filter's JSON (the
// journal's) holds "/pointer=value".
func (b BodyField) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads the field as ParseBodyField does.
func (b *BodyField) UnmarshalText(text []byte) error {
	f, err := ParseBodyField(string(text))
	if err != nil {
		return err
	}
	*b = f
	return nil
}
