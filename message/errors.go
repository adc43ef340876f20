package message

import "errors"

// ErrMalformedLineage reports a "redrive" attribute or an envelope that does
// not decode; the starter parks such a message as poison.
var ErrMalformedLineage = errors.New("message: malformed lineage")

// ErrInvalidDocument matches every *FieldError: an execution Document that
// is missing a field or has one out of range.
var ErrInvalidDocument = errors.New("message: invalid document")

// ErrNoKey reports a message a KeySelector cannot take a breaker key from.
var ErrNoKey = errors.New("message: no breaker key")
