package message

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redrive/redrive/lambda/config"
)

// The variables KeySelectorFromEnv reads. At most one of the first three
// may be set; with none set every message uses the fallback key.
const (
	// EnvKey sets one fixed breaker key for every message.
	EnvKey = "BREAKER_KEY"
	// EnvKeyAttribute names a message attribute holding the key.
	EnvKeyAttribute = "BREAKER_KEY_ATTRIBUTE"
	// EnvKeyPointer is an RFC 6901 JSON pointer to the key in the body.
	EnvKeyPointer = "BREAKER_KEY_POINTER"
	// EnvKeyDefault is the fallback key, for messages the key cannot be
	// taken from; default DefaultKey.
	EnvKeyDefault = "BREAKER_KEY_DEFAULT"
)

// DefaultKey is the fallback breaker key when EnvKeyDefault is unset.
const DefaultKey = "default"

// MaxKeyLength bounds a breaker key, in bytes; it becomes part of a table
// key and a metric dimension.
const MaxKeyLength = 256

// KeySelector takes the breaker key from a message: a fixed key, a message
// attribute, or a JSON pointer into the body. Make one with
// KeySelectorFromEnv.
type KeySelector struct {
	fixed     string
	attribute string
	pointer   *pointer
	fallback  string
}

// KeySelectorFromEnv reads the selector from EnvKey, EnvKeyAttribute,
// EnvKeyPointer and EnvKeyDefault, recording problems in env: more than one
// source set, an invalid pointer, an invalid fixed or fallback key.
func KeySelectorFromEnv(env *config.Env) KeySelector {
	s := KeySelector{
		fixed:     env.Value(EnvKey),
		attribute: env.Value(EnvKeyAttribute),
		fallback:  env.String(EnvKeyDefault, DefaultKey),
	}
	var set []string
	for _, name := range []string{EnvKey, EnvKeyAttribute, EnvKeyPointer} {
		if env.Value(name) != "" {
			set = append(set, name)
		}
	}
	if len(set) > 1 {
		for _, name := range set {
			env.Fail(name, fmt.Sprintf("set at most one of %s, %s and %s; %v are set", EnvKey, EnvKeyAttribute, EnvKeyPointer, set))
		}
	}
	if text := env.Value(EnvKeyPointer); text != "" {
		p, err := parsePointer(text)
		if err != nil {
			env.Fail(EnvKeyPointer, err.Error())
		}
		s.pointer = &p
	}
	if err := CheckKey(s.fixed); s.fixed != "" && err != nil {
		env.Fail(EnvKey, err.Error())
	}
	if err := CheckKey(s.fallback); err != nil {
		env.Fail(EnvKeyDefault, err.Error())
	}
	return s
}

// Fallback is the key for messages Select finds no key in.
func (s KeySelector) Fallback() string { return s.fallback }

// Select returns msg's breaker key. A missing attribute or pointer target,
// or one that is not a string, is an error matching ErrNoKey: the caller
// then uses Fallback and logs why. With no source configured every message
// gets the fallback key.
func (s KeySelector) Select(msg Message) (string, error) {
	var key string
	switch {
	case s.fixed != "":
		return s.fixed, nil
	case s.attribute != "":
		a, ok := msg.MessageAttributes[s.attribute]
		if !ok {
			return "", fmt.Errorf("%w: message %q has no attribute %q", ErrNoKey, msg.ID, s.attribute)
		}
		if !a.IsString() {
			return "", fmt.Errorf("%w: message %q: attribute %q has data type %q, want String or Number", ErrNoKey, msg.ID, s.attribute, a.DataType)
		}
		key = a.StringValue
	case s.pointer != nil:
		v, err := s.pointer.lookup(msg.Body)
		if err != nil {
			return "", fmt.Errorf("%w: message %q: JSON pointer %q: %w", ErrNoKey, msg.ID, s.pointer.text, err)
		}
		str, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%w: message %q: JSON pointer %q refers to %s, want a string", ErrNoKey, msg.ID, s.pointer.text, jsonKind(v))
		}
		key = str
	default:
		if s.fallback == "" {
			return "", fmt.Errorf("%w: no key source configured", ErrNoKey)
		}
		return s.fallback, nil
	}
	if err := CheckKey(key); err != nil {
		return "", fmt.Errorf("%w: message %q: %w", ErrNoKey, msg.ID, err)
	}
	return key, nil
}

// CheckKey is the one rule for breaker keys, shared by the starter, the
// admin commands and the CLI, so that no key is ever created that an
// operator cannot address: 1 to MaxKeyLength bytes of UTF-8, without
// leading or trailing spaces and without control characters. A key that
// breaks it is refused, never normalised.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("empty breaker key")
	case len(key) > MaxKeyLength:
		return fmt.Errorf("breaker key of %d bytes, want at most %d", len(key), MaxKeyLength)
	case !utf8.ValidString(key):
		return fmt.Errorf("breaker key %q is not valid UTF-8", key)
	case strings.TrimSpace(key) != key:
		return fmt.Errorf("breaker key %q starts or ends with spaces", key)
	case strings.ContainsFunc(key, unicode.IsControl):
		return fmt.Errorf("breaker key %q contains control characters", key)
	}
	return nil
}
