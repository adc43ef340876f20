package executor

import (
	"net/http"
	"strconv"
)

// fixedHeaders are the AllHttpHeaders values that never change; data is
// never modified once built, so every result shares them.
var fixedHeaders = map[string]any{
	"x-amzn-Remapped-Content-Length": []any{"0"},
	"Connection":                     []any{"keep-alive"},
	"Content-Type":                   []any{"application/json"},
}

// maxInvokeMetadata bounds how much invokeResult's fields other than
// Payload add to its JSON (about 1 KiB; a test checks the bound).
const maxInvokeMetadata = 4096

// skipInvokeResult draws from the execution's source what invokeResult
// would (its request id and trace id), for a result not built: the
// source's later values are those of a run that built it. Call with x.mu
// held.
func (x *execution) skipInvokeResult() {
	x.UUID()
	x.hex(24)
}

// invokeResult builds arn:aws:states:::lambda:invoke's result: the Lambda
// Invoke API response as Step Functions' SDK integration returns it, with
// the function's response under Payload. Call with x.mu held.
func (x *execution) invokeResult(c *call, payload any) map[string]any {
	version := c.inv.ExecutedVersion
	if version == "" {
		version = "$LATEST"
	}
	requestID := x.UUID()
	now := x.e.Now()
	date := now.UTC().Format(http.TimeFormat)
	trace := "root=1-" + strconv.FormatInt(now.Unix(), 16) + "-" + x.hex(24) + ";sampled=0"
	length := strconv.Itoa(len(c.inv.Payload))
	all := map[string]any{
		"X-Amz-Executed-Version":         []any{version},
		"x-amzn-Remapped-Content-Length": fixedHeaders["x-amzn-Remapped-Content-Length"],
		"Connection":                     fixedHeaders["Connection"],
		"x-amzn-RequestId":               []any{requestID},
		"Content-Length":                 []any{length},
		"Date":                           []any{date},
		"X-Amzn-Trace-Id":                []any{trace},
		"Content-Type":                   fixedHeaders["Content-Type"],
	}
	single := map[string]any{
		"X-Amz-Executed-Version":         version,
		"x-amzn-Remapped-Content-Length": "0",
		"Connection":                     "keep-alive",
		"x-amzn-RequestId":               requestID,
		"Content-Length":                 length,
		"Date":                           date,
		"X-Amzn-Trace-Id":                trace,
		"Content-Type":                   "application/json",
	}
	return map[string]any{
		"ExecutedVersion": version,
		"Payload":         payload,
		"SdkHttpMetadata": map[string]any{
			"AllHttpHeaders": all,
			"HttpHeaders":    single,
			"HttpStatusCode": int64(http.StatusOK),
		},
		"SdkResponseMetadata": map[string]any{"RequestId": requestID},
		"StatusCode":          int64(http.StatusOK),
	}
}

// UUID returns a version 4 UUID from the execution's seeded source (for
// States.UUID, as asl.Env, and request ids). Call with x.mu held.
func (x *execution) UUID() string {
	return formatUUID(x.rng.Uint64(), x.rng.Uint64())
}

// hex returns n random lower-case hex digits (n <= 32). Call with x.mu held.
func (x *execution) hex(n int) string {
	const digits = "0123456789abcdef"
	var b [32]byte
	hi, lo := x.rng.Uint64(), x.rng.Uint64()
	for i := range n {
		word := &lo
		if i >= 16 {
			word = &hi
		}
		b[i] = digits[*word&15]
		*word >>= 4
	}
	return string(b[:n])
}

// formatUUID formats 128 random bits as a version 4, variant 1 UUID.
func formatUUID(hi, lo uint64) string {
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // variant 10
	const digits = "0123456789abcdef"
	var b [36]byte
	pos := 0
	put := func(v uint64, n int) {
		for i := n - 1; i >= 0; i-- {
			b[pos+i] = digits[v&15]
			v >>= 4
		}
		pos += n
	}
	put(hi>>32, 8)
	b[pos] = '-'
	pos++
	put(hi>>16&0xffff, 4)
	b[pos] = '-'
	pos++
	put(hi&0xffff, 4)
	b[pos] = '-'
	pos++
	put(lo>>48, 4)
	b[pos] = '-'
	pos++
	put(lo&0xffffffffffff, 12)
	return string(b[:])
}
