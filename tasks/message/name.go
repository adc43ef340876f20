package message

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxExecutionName is Step Functions' limit on an execution name's length.
const MaxExecutionName = 80

// nameHashLen is how many hex digits of the origin id's SHA-256 a shortened
// or rewritten name carries: 48 bits, so distinct origins keep distinct
// names.
const nameHashLen = 12

// ExecutionName names the execution that redrives attempt (from 1) of the
// message originID, continued continuation times: "<origin>-a<attempt>",
// plus "-c<continuation>" when continuation > 0. It is deterministic, so a
// duplicate delivery of a DLQ message maps to the same name and Step
// Functions' ExecutionAlreadyExists marks it a duplicate.
//
// The origin part keeps only ASCII letters, digits, '-' and '_': stricter
// than Step Functions' rules (which also allow other Unicode) because only
// such names keep CloudWatch Logs logging enabled for the execution. Every
// other character (whitespace, < > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /,
// control characters, non-ASCII) becomes '-'. When a character was
// replaced, or the name would pass MaxExecutionName characters, the origin
// part is cut to fit and followed by "-" and a hash of the whole origin id,
// so that distinct origins never share a name. SQS message ids (UUIDs) are
// kept as they are.
func ExecutionName(originID string, attempt, continuation int) string {
	suffix := "-a" + strconv.Itoa(attempt)
	if continuation > 0 {
		suffix += "-c" + strconv.Itoa(continuation)
	}
	clean, replaced := sanitizeName(originID)
	room := MaxExecutionName - len(suffix)
	if !replaced && clean != "" && len(clean) <= room {
		return clean + suffix
	}
	sum := sha256.Sum256([]byte(originID))
	hash := hex.EncodeToString(sum[:])[:nameHashLen]
	keep := min(len(clean), room-nameHashLen-1)
	if keep <= 0 {
		return hash + suffix
	}
	return clean[:keep] + "-" + hash + suffix
}

// sanitizeName replaces every character outside [A-Za-z0-9_-] with '-', one
// per character; replaced reports whether any was.
func sanitizeName(s string) (clean string, replaced bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
			replaced = true
		}
	}
	return b.String(), replaced
}
