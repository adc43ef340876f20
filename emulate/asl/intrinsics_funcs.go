package asl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits the AWS documentation sets on intrinsic arguments.
const (
	maxArrayRangeItems = 1000
	maxIntrinsicChars  = 10000 // States.Hash and States.Base64* input
)

// intrinsicSpec describes one intrinsic function.
type intrinsicSpec struct {
	minArgs, maxArgs int // maxArgs < 0: no limit
	fn               func(n *callNode, args []any, env Env) (any, error)
	// check validates literal arguments at load, or is nil.
	check func(args []tmplNode) error
}

// arity describes the accepted argument count for error messages.
func (s *intrinsicSpec) arity() string {
	switch {
	case s.maxArgs < 0:
		return fmt.Sprintf("at least %d arguments", s.minArgs)
	case s.minArgs == s.maxArgs && s.minArgs == 1:
		return "1 argument"
	case s.minArgs == s.maxArgs:
		return fmt.Sprintf("%d arguments", s.minArgs)
	default:
		return fmt.Sprintf("%d to %d arguments", s.minArgs, s.maxArgs)
	}
}

// intrinsics are the supported intrinsic functions by name.
var intrinsics = map[string]*intrinsicSpec{
	"States.Format":         {minArgs: 1, maxArgs: -1, fn: fnFormat, check: checkFormat},
	"States.StringToJson":   {minArgs: 1, maxArgs: 1, fn: fnStringToJSON},
	"States.JsonToString":   {minArgs: 1, maxArgs: 1, fn: fnJSONToString, check: checkJSONToString},
	"States.Array":          {minArgs: 0, maxArgs: -1, fn: fnArray},
	"States.ArrayPartition": {minArgs: 2, maxArgs: 2, fn: fnArrayPartition},
	"States.ArrayContains":  {minArgs: 2, maxArgs: 2, fn: fnArrayContains},
	"States.ArrayRange":     {minArgs: 3, maxArgs: 3, fn: fnArrayRange},
	"States.ArrayGetItem":   {minArgs: 2, maxArgs: 2, fn: fnArrayGetItem},
	"States.ArrayLength":    {minArgs: 1, maxArgs: 1, fn: fnArrayLength},
	"States.ArrayUnique":    {minArgs: 1, maxArgs: 1, fn: fnArrayUnique},
	"States.Base64Encode":   {minArgs: 1, maxArgs: 1, fn: fnBase64Encode},
	"States.Base64Decode":   {minArgs: 1, maxArgs: 1, fn: fnBase64Decode},
	"States.Hash":           {minArgs: 2, maxArgs: 2, fn: fnHash},
	"States.JsonMerge":      {minArgs: 3, maxArgs: 3, fn: fnJSONMerge},
	"States.MathRandom":     {minArgs: 2, maxArgs: 3, fn: fnMathRandom},
	"States.MathAdd":        {minArgs: 2, maxArgs: 2, fn: fnMathAdd},
	"States.StringSplit":    {minArgs: 2, maxArgs: 2, fn: fnStringSplit},
	"States.UUID":           {minArgs: 0, maxArgs: 0, fn: fnUUID},
}

// checkFormat verifies a literal template's placeholder count at load.
func checkFormat(args []tmplNode) error {
	switch t := args[0].(type) {
	case *strLiteral:
		if want := len(t.segs) - 1; want != len(args)-1 {
			return fmt.Errorf("the template has %d '{}' placeholders but %d values follow it", want, len(args)-1)
		}
	case constNode:
		return fmt.Errorf("the template (argument 1) must be a string, got %s", jsonText(t.v))
	}
	return nil
}

// fnFormat implements States.Format: the template with each unescaped "{}"
// replaced by the next argument.
func fnFormat(n *callNode, args []any, _ Env) (any, error) {
	var segs []string
	if lit, ok := n.args[0].(*strLiteral); ok {
		segs = lit.segs
	} else {
		t, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("the template (argument 1) must be a string, got %s", jsonText(args[0]))
		}
		segs = strings.Split(t, "{}")
	}
	if len(segs)-1 != len(args)-1 {
		return nil, fmt.Errorf("the template has %d '{}' placeholders but %d values follow it", len(segs)-1, len(args)-1)
	}
	buf := make([]byte, 0, 64)
	buf = append(buf, segs[0]...)
	for i, v := range args[1:] {
		buf = appendFormatValue(buf, v)
		buf = append(buf, segs[i+1]...)
	}
	return string(buf), nil
}

// appendFormatValue renders a States.Format argument as Step Functions
// does: strings as they are, other scalars as JSON, and objects and arrays
// the way Java prints maps and lists ({a=1, b=[x, y]}).
func appendFormatValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(buf, x...)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		return strconv.AppendFloat(buf, x, 'f', -1, 64)
	case map[string]any:
		buf = append(buf, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(append(buf, k...), '=')
			buf = appendFormatValue(buf, x[k])
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendFormatValue(buf, e)
		}
		return append(buf, ']')
	}
	return append(buf, jsonText(v)...) // null, booleans, other number types
}

// fnStringToJSON implements States.StringToJson.
func fnStringToJSON(_ *callNode, args []any, _ Env) (any, error) {
	s, err := stringArg(args, 0)
	if err != nil {
		return nil, err
	}
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("argument 1 is not a JSON text: %v", err)
	}
	return v, nil
}

// checkJSONToString enforces the documented form: the argument is a path
// (or an intrinsic yielding the data), never a literal.
func checkJSONToString(args []tmplNode) error {
	if _, ok := args[0].(*pathNode); ok {
		return nil
	}
	if _, ok := args[0].(*callNode); ok {
		return nil
	}
	return errors.New("the argument must be a path")
}

// fnJSONToString implements States.JsonToString: compact JSON text.
func fnJSONToString(_ *callNode, args []any, _ Env) (any, error) {
	return jsonText(args[0]), nil
}

// fnArray implements States.Array.
func fnArray(_ *callNode, args []any, _ Env) (any, error) {
	out := make([]any, len(args))
	copy(out, args)
	return out, nil
}

// fnArrayPartition implements States.ArrayPartition(array, chunkSize).
func fnArrayPartition(_ *callNode, args []any, _ Env) (any, error) {
	arr, err := arrayArg(args, 0)
	if err != nil {
		return nil, err
	}
	size, err := intArg(args, 1)
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("the chunk size (argument 2) must be a positive integer, got %d", size)
	}
	out := make([]any, 0, (int64(len(arr))+size-1)/size)
	for start := 0; start < len(arr); start += int(size) {
		end := min(start+int(size), len(arr))
		chunk := make([]any, end-start)
		copy(chunk, arr[start:end])
		out = append(out, chunk)
	}
	return out, nil
}

// fnArrayContains implements States.ArrayContains(array, value).
func fnArrayContains(_ *callNode, args []any, _ Env) (any, error) {
	arr, err := arrayArg(args, 0)
	if err != nil {
		return nil, err
	}
	for _, v := range arr {
		if jsonEqual(v, args[1]) {
			return true, nil
		}
	}
	return false, nil
}

// fnArrayRange implements States.ArrayRange(first, last, step): first, then
// every step up to and including last, at most 1000 items.
func fnArrayRange(_ *callNode, args []any, _ Env) (any, error) {
	var v [3]int64
	for i := range v {
		n, err := intArg(args, i)
		if err != nil {
			return nil, err
		}
		v[i] = n
	}
	first, last, step := v[0], v[1], v[2]
	if step == 0 {
		return nil, errors.New("the step (argument 3) must not be 0")
	}
	count := int64(0)
	if (step > 0 && last >= first) || (step < 0 && last <= first) {
		count = (last-first)/step + 1
	}
	if count > maxArrayRangeItems {
		return nil, fmt.Errorf("the range has %d items; at most %d are allowed", count, maxArrayRangeItems)
	}
	out := make([]any, count)
	for i := range out {
		out[i] = first + int64(i)*step
	}
	return out, nil
}

// fnArrayGetItem implements States.ArrayGetItem(array, index).
func fnArrayGetItem(_ *callNode, args []any, _ Env) (any, error) {
	arr, err := arrayArg(args, 0)
	if err != nil {
		return nil, err
	}
	i, err := intArg(args, 1)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= int64(len(arr)) {
		return nil, fmt.Errorf("index %d is out of bounds for an array of length %d", i, len(arr))
	}
	return arr[i], nil
}

// fnArrayLength implements States.ArrayLength.
func fnArrayLength(_ *callNode, args []any, _ Env) (any, error) {
	arr, err := arrayArg(args, 0)
	if err != nil {
		return nil, err
	}
	return int64(len(arr)), nil
}

// fnArrayUnique implements States.ArrayUnique: the first occurrence of each
// distinct value, in order.
func fnArrayUnique(_ *callNode, args []any, _ Env) (any, error) {
	arr, err := arrayArg(args, 0)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]struct{}, len(arr))
	out := make([]any, 0, len(arr))
	for _, v := range arr {
		k := canonicalKey(v)
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, v)
	}
	return out, nil
}

// fnBase64Encode implements States.Base64Encode.
func fnBase64Encode(_ *callNode, args []any, _ Env) (any, error) {
	s, err := limitedStringArg(args, 0)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
}

// fnBase64Decode implements States.Base64Decode.
func fnBase64Decode(_ *callNode, args []any, _ Env) (any, error) {
	s, err := limitedStringArg(args, 0)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("argument 1 is not base64: %v", err)
	}
	return string(b), nil
}

// hashes are the algorithms States.Hash accepts.
var hashes = map[string]func() hash.Hash{
	"MD5":     md5.New,
	"SHA-1":   sha1.New,
	"SHA-256": sha256.New,
	"SHA-384": sha512.New384,
	"SHA-512": sha512.New,
}

// fnHash implements States.Hash(data, algorithm): the lower-case hex digest.
func fnHash(_ *callNode, args []any, _ Env) (any, error) {
	s, err := limitedStringArg(args, 0)
	if err != nil {
		return nil, err
	}
	alg, err := stringArg(args, 1)
	if err != nil {
		return nil, err
	}
	newHash, ok := hashes[alg]
	if !ok {
		return nil, fmt.Errorf("unsupported algorithm %q (want MD5, SHA-1, SHA-256, SHA-384 or SHA-512)", alg)
	}
	h := newHash()
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fnJSONMerge implements States.JsonMerge(a, b, false): a shallow merge where
// b's members win. Deep merging is not supported by Step Functions either.
func fnJSONMerge(_ *callNode, args []any, _ Env) (any, error) {
	a, err := objectArg(args, 0)
	if err != nil {
		return nil, err
	}
	b, err := objectArg(args, 1)
	if err != nil {
		return nil, err
	}
	if deep, ok := args[2].(bool); !ok || deep {
		return nil, fmt.Errorf("argument 3 must be false (only shallow merging is supported), got %s", jsonText(args[2]))
	}
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out, nil
}

// fnMathRandom implements States.MathRandom(start, end[, seed]): an integer
// in [start, end).
func fnMathRandom(_ *callNode, args []any, env Env) (any, error) {
	start, err := intArg(args, 0)
	if err != nil {
		return nil, err
	}
	end, err := intArg(args, 1)
	if err != nil {
		return nil, err
	}
	if end <= start {
		return nil, fmt.Errorf("the end (argument 2) must be greater than the start, got %d and %d", start, end)
	}
	n := end - start
	switch {
	case len(args) == 3:
		seed, err := intArg(args, 2)
		if err != nil {
			return nil, err
		}
		return start + mrand.New(mrand.NewPCG(uint64(seed), 0)).Int64N(n), nil
	case env != nil:
		return start + env.Int64N(n), nil
	default:
		return start + mrand.Int64N(n), nil
	}
}

// fnMathAdd implements States.MathAdd(a, b) over integers.
func fnMathAdd(_ *callNode, args []any, _ Env) (any, error) {
	a, err := intArg(args, 0)
	if err != nil {
		return nil, err
	}
	b, err := intArg(args, 1)
	if err != nil {
		return nil, err
	}
	sum := a + b
	if (b > 0 && sum < a) || (b < 0 && sum > a) {
		return nil, fmt.Errorf("%d + %d overflows", a, b)
	}
	return sum, nil
}

// fnStringSplit implements States.StringSplit(string, delimiters): every
// character of delimiters separates values; empty values are dropped.
func fnStringSplit(_ *callNode, args []any, _ Env) (any, error) {
	s, err := stringArg(args, 0)
	if err != nil {
		return nil, err
	}
	delims, err := stringArg(args, 1)
	if err != nil {
		return nil, err
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(delims, r) })
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = f
	}
	return out, nil
}

// fnUUID implements States.UUID: a version 4 UUID from the environment's
// seeded source, or from crypto/rand without one.
func fnUUID(_ *callNode, _ []any, env Env) (any, error) {
	if env != nil {
		return env.UUID(), nil
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// stringArg returns argument i as a string.
func stringArg(args []any, i int) (string, error) {
	s, ok := args[i].(string)
	if !ok {
		return "", fmt.Errorf("argument %d must be a string, got %s", i+1, jsonText(args[i]))
	}
	return s, nil
}

// limitedStringArg returns argument i as a string of at most 10,000
// characters.
func limitedStringArg(args []any, i int) (string, error) {
	s, err := stringArg(args, i)
	if err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(s); n > maxIntrinsicChars {
		return "", fmt.Errorf("argument %d has %d characters; at most %d are allowed", i+1, n, maxIntrinsicChars)
	}
	return s, nil
}

// arrayArg returns argument i as an array.
func arrayArg(args []any, i int) ([]any, error) {
	a, ok := args[i].([]any)
	if !ok {
		return nil, fmt.Errorf("argument %d must be an array, got %s", i+1, jsonText(args[i]))
	}
	return a, nil
}

// objectArg returns argument i as an object.
func objectArg(args []any, i int) (map[string]any, error) {
	o, ok := args[i].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %d must be an object, got %s", i+1, jsonText(args[i]))
	}
	return o, nil
}

// intArg returns argument i as an integer; like Step Functions, it rounds
// a non-integer number to the nearest integer.
func intArg(args []any, i int) (int64, error) {
	if n, ok := toInt64(args[i]); ok {
		return n, nil
	}
	f, ok := toFloat(args[i])
	if !ok {
		return 0, fmt.Errorf("argument %d must be an integer, got %s", i+1, jsonText(args[i]))
	}
	r := math.Round(f)
	if math.IsNaN(r) || r < math.MinInt64 || r >= math.MaxInt64 {
		return 0, fmt.Errorf("argument %d is out of the integer range, got %s", i+1, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return int64(r), nil
}
