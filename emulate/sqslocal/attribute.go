package sqslocal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// maxMessageAttributes is SQS's limit of message attributes per message.
const maxMessageAttributes = 10

// maxAttributeNameLen bounds attribute names and data types.
const maxAttributeNameLen = 256

// maxNumberDigits is the precision of a Number attribute.
const maxNumberDigits = 38

// MessageAttribute is one message attribute value: its data type (String,
// Number or Binary, optionally with a custom label such as "Number.int")
// and the value, in StringValue for String and Number types and in
// BinaryValue for Binary types. Its JSON form is SQS's.
type MessageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

// wireAttribute is a message attribute as a request carries it, with the
// list values SQS reserves and rejects.
type wireAttribute struct {
	MessageAttribute
	StringListValues []string `json:"StringListValues"`
	BinaryListValues [][]byte `json:"BinaryListValues"`
}

// size is the attribute's contribution to the message size: name, data
// type and value bytes, as SQS counts it.
func (a MessageAttribute) size(name string) int {
	return len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
}

var (
	// attributeNamePattern: alphanumerics, hyphens, underscores and
	// periods; the period rules are checked separately.
	attributeNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	// customLabelPattern is the label after a data type's base.
	customLabelPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	// numberPattern is a decimal number with optional sign, fraction and
	// exponent.
	numberPattern = regexp.MustCompile(`^[+-]?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,6}))?$`)
)

// checkMessageAttributes validates a message's attributes as SQS does and
// returns them without the wire-only fields.
func checkMessageAttributes(in map[string]wireAttribute) (map[string]MessageAttribute, *apiError) {
	if len(in) > maxMessageAttributes {
		return nil, errInvalidParameterValue.errorf("Number of message attributes [%d] exceeds the allowed maximum [%d].", len(in), maxMessageAttributes)
	}
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]MessageAttribute, len(in))
	for name, a := range in {
		if err := checkAttributeName(name); err != nil {
			return nil, err
		}
		if err := checkAttributeValue(name, a); err != nil {
			return nil, err
		}
		out[name] = a.MessageAttribute
	}
	return out, nil
}

// checkAttributeName applies SQS's message attribute name rules.
func checkAttributeName(name string) *apiError {
	lower := strings.ToLower(name)
	switch {
	case name == "":
		return errInvalidParameterValue.errorf("Message attribute name can not be empty.")
	case len(name) > maxAttributeNameLen:
		return errInvalidParameterValue.errorf("Message attribute name '%s' is longer than %d characters.", name, maxAttributeNameLen)
	case !attributeNamePattern.MatchString(name):
		return errInvalidParameterValue.errorf("Message attribute name '%s' can only contain alphanumeric characters, hyphens, underscores and periods.", name)
	case strings.HasPrefix(lower, "aws.") || strings.HasPrefix(lower, "amazon."):
		return errInvalidParameterValue.errorf("Message attribute name '%s' starts with a prefix reserved for AWS (AWS. or Amazon.).", name)
	case strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."):
		return errInvalidParameterValue.errorf("Message attribute name '%s' can not start or end with a period.", name)
	case strings.Contains(name, ".."):
		return errInvalidParameterValue.errorf("Message attribute name '%s' can not have successive periods.", name)
	}
	return nil
}

// checkAttributeValue applies SQS's data type and value rules to the
// attribute called name.
func checkAttributeValue(name string, a wireAttribute) *apiError {
	if a.StringListValues != nil || a.BinaryListValues != nil {
		return errInvalidParameterValue.errorf("Message attribute '%s': StringListValues and BinaryListValues are reserved by SQS and not supported.", name)
	}
	if err := checkDataType(name, a.DataType); err != nil {
		return err
	}
	if baseType(a.DataType) == "Binary" {
		if a.StringValue != "" {
			return errInvalidParameterValue.errorf("Message attribute '%s' of type '%s' takes a BinaryValue, not a StringValue.", name, a.DataType)
		}
		if len(a.BinaryValue) == 0 {
			return errInvalidParameterValue.errorf("Message attribute '%s' must contain a non-empty message attribute value for message attribute type '%s'.", name, a.DataType)
		}
		return nil
	}
	if a.BinaryValue != nil {
		return errInvalidParameterValue.errorf("Message attribute '%s' of type '%s' takes a StringValue, not a BinaryValue.", name, a.DataType)
	}
	if a.StringValue == "" {
		return errInvalidParameterValue.errorf("Message attribute '%s' must contain a non-empty message attribute value for message attribute type '%s'.", name, a.DataType)
	}
	if r, ok := firstInvalidChar(a.StringValue); ok {
		return errInvalidParameterValue.errorf("Message attribute '%s' contains the character #x%X, which SQS does not allow.", name, r)
	}
	if baseType(a.DataType) == "Number" {
		if reason := checkNumber(a.StringValue); reason != "" {
			return errInvalidParameterValue.errorf("Value %s for message attribute '%s' of type Number is invalid: %s.", a.StringValue, name, reason)
		}
	}
	return nil
}

// checkDataType accepts String, Number and Binary, each optionally
// followed by a period and a custom label.
func checkDataType(name, dataType string) *apiError {
	if dataType == "" {
		return errInvalidParameterValue.errorf("The message attribute '%s' must contain non-empty message attribute type.", name)
	}
	if len(dataType) > maxAttributeNameLen {
		return errInvalidParameterValue.errorf("Message attribute '%s' has a data type longer than %d characters.", name, maxAttributeNameLen)
	}
	base, label, custom := strings.Cut(dataType, ".")
	switch {
	case base != "String" && base != "Number" && base != "Binary":
		return errInvalidParameterValue.errorf("The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
	case custom && !customLabelPattern.MatchString(label):
		return errInvalidParameterValue.errorf("Message attribute '%s' has an invalid custom type label in '%s': use alphanumeric characters, hyphens, underscores and periods.", name, dataType)
	}
	return nil
}

// checkNumber returns why s is not a valid Number value ("" if it is):
// SQS numbers have at most 38 significant digits and lie between 10^-128
// and 10^126 in magnitude (or are zero).
func checkNumber(s string) string {
	m := numberPattern.FindStringSubmatch(s)
	if m == nil || m[1]+m[2] == "" {
		return "not a number"
	}
	digits := m[1] + m[2]
	point := len(m[1]) // the value is 0.<digits> x 10^point
	if m[3] != "" {
		exp, err := strconv.Atoi(m[3])
		if err != nil {
			return "not a number"
		}
		point += exp
	}
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	switch {
	case trimmed == "":
		return ""
	case len(trimmed) > maxNumberDigits:
		return fmt.Sprintf("more than %d significant digits", maxNumberDigits)
	case point > 127 || point == 127 && trimmed != "1":
		return "larger in magnitude than 10^126"
	case point < -127:
		return "smaller in magnitude than 10^-128"
	}
	return ""
}

// firstInvalidChar returns the first rune of s outside the characters SQS
// allows in message bodies and attribute values (XML 1.0 characters:
// #x9, #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF).
func firstInvalidChar(s string) (rune, bool) {
	// Request strings come from encoding/json, which has already replaced
	// invalid UTF-8 with U+FFFD, an allowed character.
	for _, r := range s {
		if !allowedChar(r) {
			return r, true
		}
	}
	return 0, false
}

// allowedChar reports whether SQS accepts r in message content.
func allowedChar(r rune) bool {
	switch {
	case r == 0x9 || r == 0xA || r == 0xD:
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	default:
		return r >= 0x10000 && r <= 0x10FFFF
	}
}
