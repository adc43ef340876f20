package sqslocal_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal"
)

// toLocal converts SDK attribute values for sqslocal.MD5OfMessageAttributes.
func toLocal(attrs map[string]types.MessageAttributeValue) map[string]sqslocal.MessageAttribute {
	out := make(map[string]sqslocal.MessageAttribute, len(attrs))
	for name, a := range attrs {
		out[name] = sqslocal.MessageAttribute{DataType: aws.ToString(a.DataType), StringValue: aws.ToString(a.StringValue), BinaryValue: a.BinaryValue}
	}
	return out
}

// mixedAttributes has every data type, with and without custom labels.
func mixedAttributes() map[string]types.MessageAttributeValue {
	return map[string]types.MessageAttributeValue{
		"redrive":      str(`{"origin":"m-1","attempt":2}`),
		"tenant.id":    {DataType: aws.String("String.tenant"), StringValue: aws.String("acme")},
		"attempt":      {DataType: aws.String("Number"), StringValue: aws.String("2")},
		"ratio":        {DataType: aws.String("Number.float"), StringValue: aws.String("-0.25e3")},
		"payload":      {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 0xff}},
		"payload.kind": {DataType: aws.String("Binary.gzip"), BinaryValue: []byte("gz")},
	}
}

func TestSendAndReceiveChecksums(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		body   string
		fauxqs string
	}{
		{name: "JSON", body: `{"order":42,"note":"ünïcödé ✓"}`},
		{name: "tab, newline and carriage return", body: "a\tb\nc\rd"},
		{name: "beyond the basic plane", body: "clef 𝄞, emoji 🚀", fauxqs: "rejects characters #x10000 to #x10FFFF, which SQS allows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			checkRoundTrip(t, e, tt.body)
		})
	}
}

// checkRoundTrip sends body with mixedAttributes and checks every digest
// on the way in and out.
func checkRoundTrip(t *testing.T, e *env, body string) {
	t.Helper()
	q := e.queue(nil)
	attrs := mixedAttributes()
	// The SDK verifies MD5OfMessageBody on send and MD5OfBody on receive and
	// fails the call on a mismatch; the attribute digest it does not check,
	// so it is compared here with the documented algorithm.
	sent := e.send(q, body, attrs)
	assert.Equal(t, sqslocal.MD5OfBody(body), aws.ToString(sent.MD5OfMessageBody))
	assert.Equal(t, sqslocal.MD5OfMessageAttributes(toLocal(attrs)), aws.ToString(sent.MD5OfMessageAttributes))
	assert.NotEmpty(t, aws.ToString(sent.MessageId))

	m := e.receiveOne(q, sqs.ReceiveMessageInput{MessageAttributeNames: []string{"All"}})
	assert.Equal(t, body, aws.ToString(m.Body))
	assert.Equal(t, aws.ToString(sent.MessageId), aws.ToString(m.MessageId))
	assert.Equal(t, aws.ToString(sent.MD5OfMessageAttributes), aws.ToString(m.MD5OfMessageAttributes))
	assert.Equal(t, toLocal(attrs), toLocal(m.MessageAttributes))
}

func TestReceiveSelectsMessageAttributes(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		pick   []string
		want   []string
		fauxqs string
	}{
		{name: "all", pick: []string{"All"}, want: []string{"redrive", "tenant.id", "attempt", "ratio", "payload", "payload.kind"}},
		{name: "dot star", pick: []string{".*"}, want: []string{"redrive", "tenant.id", "attempt", "ratio", "payload", "payload.kind"}},
		{name: "by name", pick: []string{"attempt", "ratio"}, want: []string{"attempt", "ratio"}, fauxqs: "digests every attribute, not the returned ones"},
		{name: "by prefix", pick: []string{"tenant.*"}, want: []string{"tenant.id"}, fauxqs: "digests every attribute, not the returned ones"},
		{name: "prefix without its period", pick: []string{"payload.*"}, want: []string{"payload", "payload.kind"}, fauxqs: `matches "payload.*" to names starting with "payload." (the docs leave it open; sqslocal takes the prefix "payload")`},
		{name: "none", pick: nil, want: nil, fauxqs: "returns message attributes nobody asked for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			q := e.queue(nil)
			attrs := mixedAttributes()
			e.send(q, "x", attrs)
			m := e.receiveOne(q, sqs.ReceiveMessageInput{MessageAttributeNames: tt.pick})
			want := map[string]types.MessageAttributeValue{}
			for _, name := range tt.want {
				want[name] = attrs[name]
			}
			assert.Equal(t, toLocal(want), toLocal(m.MessageAttributes))
			// The digest covers the returned attributes only.
			assert.Equal(t, sqslocal.MD5OfMessageAttributes(toLocal(want)), aws.ToString(m.MD5OfMessageAttributes))
		})
	}
}

func TestMessageAttributeRules(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	many := func(n int) map[string]types.MessageAttributeValue {
		out := map[string]types.MessageAttributeValue{}
		for i := range n {
			out[string(rune('a'+i))] = str("v")
		}
		return out
	}
	one := func(name, dataType, value string) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: {DataType: aws.String(dataType), StringValue: aws.String(value)}}
	}
	tests := []struct {
		name   string
		attrs  map[string]types.MessageAttributeValue
		ok     bool
		fauxqs string // why the case is skipped on fauxqs ("" to run it)
	}{
		{name: "ten attributes", attrs: many(10), ok: true},
		{name: "eleven attributes", attrs: many(11), fauxqs: "has no limit of 10 attributes"},
		{name: "name of 256 characters", attrs: one(strings.Repeat("n", 256), "String", "v"), ok: true},
		{name: "name of 257 characters", attrs: one(strings.Repeat("n", 257), "String", "v"), fauxqs: "no name length limit"},
		{name: "name with a space", attrs: one("my name", "String", "v"), fauxqs: "no name character rules"},
		{name: "AWS. prefix", attrs: one("AWS.trace", "String", "v"), fauxqs: "no reserved prefixes"},
		{name: "amazon. prefix in any case", attrs: one("aMaZoN.x", "String", "v"), fauxqs: "no reserved prefixes"},
		{name: "leading period", attrs: one(".x", "String", "v"), fauxqs: "no period rules"},
		{name: "trailing period", attrs: one("x.", "String", "v"), fauxqs: "no period rules"},
		{name: "successive periods", attrs: one("a..b", "String", "v"), fauxqs: "no period rules"},
		{name: "lower-case type", attrs: one("x", "string", "v"), fauxqs: "accepts any data type"},
		{name: "unknown type", attrs: one("x", "Text", "v"), fauxqs: "accepts any data type"},
		{name: "empty custom label", attrs: one("x", "String.", "v"), fauxqs: "accepts any data type"},
		{name: "custom labels", attrs: one("x", "Number.int-32_v.2", "7"), ok: true},
		{name: "empty string value", attrs: one("x", "String", ""), fauxqs: "accepts empty values"},
		{name: "control character in value", attrs: one("x", "String", "a\x01b"), fauxqs: "does not check attribute characters"},
		{name: "number", attrs: one("x", "Number", "-12.5e-3"), ok: true},
		{name: "not a number", attrs: one("x", "Number", "twelve"), fauxqs: "does not parse numbers"},
		{name: "38 significant digits", attrs: one("x", "Number", "0.00"+strings.Repeat("9", 38)+"000"), ok: true},
		{name: "39 significant digits", attrs: one("x", "Number", strings.Repeat("9", 39)), fauxqs: "does not parse numbers"},
		{name: "10^126", attrs: one("x", "Number", "1e126"), ok: true},
		{name: "over 10^126", attrs: one("x", "Number", "1.1e126"), fauxqs: "does not parse numbers"},
		{name: "10^-128", attrs: one("x", "Number", "1E-128"), ok: true},
		{name: "under 10^-128", attrs: one("x", "Number", "9e-129"), fauxqs: "does not parse numbers"},
		{name: "zero", attrs: one("x", "Number", "-0.000"), ok: true},
		{name: "empty binary", attrs: map[string]types.MessageAttributeValue{"x": {DataType: aws.String("Binary"), BinaryValue: []byte{}}}, fauxqs: "accepts empty values"},
		{name: "binary type with a string", attrs: one("x", "Binary", "v"), fauxqs: "accepts a StringValue for Binary"},
		{name: "string list", attrs: map[string]types.MessageAttributeValue{"x": {DataType: aws.String("String"), StringListValues: []string{"a"}}}, fauxqs: "accepts list values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			out, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("x"), MessageAttributes: tt.attrs})
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, sqslocal.MD5OfMessageAttributes(toLocal(tt.attrs)), aws.ToString(out.MD5OfMessageAttributes))
				return
			}
			e.assertCode(t, err, "InvalidParameterValue")
		})
	}
}

func TestMessageSizeLimit(t *testing.T) {
	e := newEnv(t)
	const limit = sqslocal.DefaultMaxMessageSize
	attr := map[string]types.MessageAttributeValue{"abcd": str("x")} // 4 + 6 + 1 = 11 bytes
	tests := []struct {
		name     string
		queueMax string // the queue's MaximumMessageSize, "" for the default
		body     int
		attrs    map[string]types.MessageAttributeValue
		ok       bool
		fauxqs   string
	}{
		{name: "1 MiB body", body: limit, ok: true},
		{name: "1 MiB + 1 byte", body: limit + 1},
		{name: "attributes count toward the size", body: limit - 10, attrs: attr, fauxqs: "does not count attributes toward the size"},
		{name: "body plus attributes at the limit", body: limit - 11, attrs: attr, ok: true},
		{name: "queue limit", queueMax: "1024", body: 1024, ok: true},
		{name: "over the queue limit", queueMax: "1024", body: 1025},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			var attrs map[string]string
			if tt.queueMax != "" {
				attrs = map[string]string{"MaximumMessageSize": tt.queueMax}
			}
			q := e.queue(attrs)
			_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(strings.Repeat("m", tt.body)), MessageAttributes: tt.attrs})
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			e.assertCode(t, err, "InvalidParameterValue")
		})
	}
}

func TestMaxMessageSizeOption(t *testing.T) {
	e := newEnvWith(t, sqslocal.Options{MaxMessageSize: 256 << 10})
	e.embeddedOnly(t, "MaxMessageSize is a server option")
	q := e.queue(nil)
	assert.Equal(t, "262144", e.attributes(q, types.QueueAttributeNameMaximumMessageSize)["MaximumMessageSize"])
	e.send(q, strings.Repeat("m", 256<<10), nil)
	_, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(strings.Repeat("m", 256<<10+1))})
	e.assertCode(t, err, "InvalidParameterValue")
	_, err = e.client.SetQueueAttributes(t.Context(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(q.URL), Attributes: map[string]string{"MaximumMessageSize": "262145"}})
	assert.ErrorAs(t, err, new(*types.InvalidAttributeValue))
}

func TestSendRejects(t *testing.T) {
	e := newEnv(t)
	q := e.queue(nil)
	tests := []struct {
		name   string
		in     sqs.SendMessageInput
		check  func(t *testing.T, err error)
		fauxqs string
	}{
		{
			name:  "control character in the body",
			in:    sqs.SendMessageInput{MessageBody: aws.String("a\x01b")},
			check: func(t *testing.T, err error) { assert.ErrorAs(t, err, new(*types.InvalidMessageContents)) },
		},
		{
			name:  "U+FFFE in the body",
			in:    sqs.SendMessageInput{MessageBody: aws.String("a\uFFFEb")},
			check: func(t *testing.T, err error) { assert.ErrorAs(t, err, new(*types.InvalidMessageContents)) },
		},
		{
			name:   "empty body",
			in:     sqs.SendMessageInput{MessageBody: aws.String("")},
			check:  func(t *testing.T, err error) { e.assertCode(t, err, "MissingParameter") },
			fauxqs: "accepts an empty body",
		},
		{
			name:   "delay over 15 minutes",
			in:     sqs.SendMessageInput{MessageBody: aws.String("x"), DelaySeconds: 901},
			check:  func(t *testing.T, err error) { e.assertCode(t, err, "InvalidParameterValue") },
			fauxqs: "does not bound a message's DelaySeconds",
		},
		{
			name:   "deduplication ID on a standard queue",
			in:     sqs.SendMessageInput{MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d-1")},
			check:  func(t *testing.T, err error) { e.assertCode(t, err, "InvalidParameterValue") },
			fauxqs: "accepts a deduplication ID on a standard queue",
		},
		{
			name: "system attribute other than AWSTraceHeader",
			in: sqs.SendMessageInput{MessageBody: aws.String("x"), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
				"SenderId": {DataType: aws.String("String"), StringValue: aws.String("me")},
			}},
			check:  func(t *testing.T, err error) { e.assertCode(t, err, "InvalidParameterValue") },
			fauxqs: "accepts any system attribute",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fauxqsDiffers(t, tt.fauxqs)
			tt.in.QueueUrl = aws.String(q.URL)
			_, err := e.client.SendMessage(t.Context(), &tt.in)
			require.Error(t, err)
			tt.check(t, err)
		})
	}
}

func TestSendTraceHeaderAndGroupID(t *testing.T) {
	e := newEnv(t)
	e.fauxqsDiffers(t, "neither digests nor returns AWSTraceHeader and MessageGroupId")
	q := e.queue(nil)
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"
	out, err := e.client.SendMessage(t.Context(), &sqs.SendMessageInput{
		QueueUrl:       aws.String(q.URL),
		MessageBody:    aws.String("x"),
		MessageGroupId: aws.String("tenant-7"),
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(trace)},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, sqslocal.MD5OfMessageAttributes(map[string]sqslocal.MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: trace}}), aws.ToString(out.MD5OfMessageSystemAttributes))
	m := e.receiveOne(q, sqs.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{
		types.MessageSystemAttributeNameAWSTraceHeader, types.MessageSystemAttributeNameMessageGroupId,
	}})
	assert.Equal(t, map[string]string{"AWSTraceHeader": trace, "MessageGroupId": "tenant-7"}, m.Attributes)
}
