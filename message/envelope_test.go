package message_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/redrive/redrive/message"
)

// withAttributes is a message with n String attributes a0..a(n-1).
func withAttributes(n int) message.Message {
	msg := message.Message{ID: "m-1", Body: "body"}
	msg.MessageAttributes = map[string]message.Attribute{}
	for i := range n {
		msg.MessageAttributes[fmt.Sprintf("a%d", i)] = message.StringAttribute(fmt.Sprint(i))
	}
	return msg
}

func TestWithLineageEnvelopesOnlyWhenFull(t *testing.T) {
	lin := message.Lineage{OriginID: "m-0", Attempt: 3}
	tests := []struct {
		name      string
		msg       message.Message
		enveloped bool
	}{
		{name: "no attributes", msg: message.Message{ID: "m-1", Body: "b"}},
		{name: "nine others", msg: withAttributes(9)},
		{name: "nine others and an old lineage", msg: func() message.Message {
			m := withAttributes(9)
			m.MessageAttributes[message.AttributeName] = message.StringAttribute(`{"originId":"old","attempt":1}`)
			return m
		}()},
		{name: "ten others", msg: withAttributes(10), enveloped: true},
		{name: "ten others and an old lineage", msg: func() message.Message {
			m := withAttributes(10)
			m.MessageAttributes[message.AttributeName] = message.StringAttribute(`{"originId":"old","attempt":1}`)
			return m
		}(), enveloped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := maps.Clone(tt.msg.MessageAttributes)
			out, enveloped, err := message.WithLineage(tt.msg, lin)
			require.NoError(t, err)
			assert.Equal(t, tt.enveloped, enveloped)
			assert.LessOrEqual(t, len(out.MessageAttributes), message.MaxAttributes, "what is sent fits SQS")
			assert.Equal(t, before, tt.msg.MessageAttributes, "the input is not changed")
			if enveloped {
				assert.Empty(t, out.MessageAttributes)
				assert.NotEqual(t, tt.msg.Body, out.Body)
			} else {
				assert.Equal(t, tt.msg.Body, out.Body)
			}
			got, found, err := message.LineageOf(out)
			require.NoError(t, err)
			assert.True(t, found)
			assert.Equal(t, lin, got, "the new lineage replaces the old")
		})
	}
}

func TestUnwrapOrdinaryBodies(t *testing.T) {
	for _, body := range []string{
		"", "plain text", `{"order":1}`, `[1,2]`, `{"redriveEnvelope"`, // not JSON
		`{"data":{"redriveEnvelope":1}}`, // the key, but not at the top
		`"{\"redriveEnvelope\":1}"`,      // a JSON string
	} {
		t.Run(body, func(t *testing.T) {
			msg := message.Message{ID: "m-1", Body: body}
			out, wrapped, err := message.Unwrap(msg)
			require.NoError(t, err)
			assert.False(t, wrapped)
			assert.Equal(t, msg, out)
		})
	}
}

func TestUnwrapMalformedEnvelope(t *testing.T) {
	lineage := `"lineage":{"originId":"m-0","attempt":1}`
	tests := []struct {
		name    string
		body    string
		problem string
	}{
		{name: "unknown version", body: `{"redriveEnvelope":2,"body":"b",` + lineage + `}`, problem: "redriveEnvelope 2, want 1"},
		{name: "no body", body: `{"redriveEnvelope":1,` + lineage + `}`, problem: "body is missing"},
		{name: "no lineage", body: `{"redriveEnvelope":1,"body":"b"}`, problem: "lineage is missing"},
		{name: "bad lineage", body: `{"redriveEnvelope":1,"body":"b","lineage":{"attempt":1}}`, problem: "lineage: originId is missing"},
		{name: "body not a string", body: `{"redriveEnvelope":1,"body":{"order":1},` + lineage + `}`, problem: "cannot unmarshal"},
		{name: "bad attributes", body: `{"redriveEnvelope":1,"body":"b","messageAttributes":[1],` + lineage + `}`, problem: "cannot unmarshal"},
		// What SQS would refuse, as the parking lot would: never unwrapped.
		{name: "an attribute without a value", body: `{"redriveEnvelope":1,"body":"b","messageAttributes":{"k":{"dataType":"String"}},` + lineage + `}`,
			problem: `message attribute "k": String attribute without a value`},
		{name: "a binary attribute without a value", body: `{"redriveEnvelope":1,"body":"b","messageAttributes":{"k":{"dataType":"Binary.raw"}},` + lineage + `}`,
			problem: `message attribute "k": Binary.raw attribute without a value`},
		{name: "an attribute of an unknown type", body: `{"redriveEnvelope":1,"body":"b","messageAttributes":{"k":{"dataType":"Text","stringValue":"v"}},` + lineage + `}`,
			problem: `message attribute "k": data type "Text" is not String, Number or Binary`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := message.Message{ID: "m-7", Body: tt.body}
			_, _, err := message.Unwrap(msg)
			require.Error(t, err)
			assert.ErrorIs(t, err, message.ErrMalformedLineage)
			assert.Contains(t, err.Error(), `envelope of message "m-7"`)
			assert.Contains(t, err.Error(), tt.problem)

			_, _, err = message.LineageOf(msg)
			assert.ErrorIs(t, err, message.ErrMalformedLineage)
		})
	}
}

// drawAttribute draws a String, Number or Binary attribute.
func drawAttribute(t *rapid.T, label string) message.Attribute {
	switch rapid.IntRange(0, 2).Draw(t, label+".type") {
	case 0:
		return message.Attribute{DataType: "String", StringValue: rapid.StringN(1, 40, -1).Draw(t, label+".s")}
	case 1:
		return message.Attribute{DataType: "Number.int", StringValue: fmt.Sprint(rapid.Int().Draw(t, label+".n"))}
	default:
		return message.Attribute{DataType: "Binary", BinaryValue: rapid.SliceOfN(rapid.Byte(), 1, 40).Draw(t, label+".b")}
	}
}

// drawLineage draws a valid lineage.
func drawLineage(t *rapid.T) message.Lineage {
	lin := message.Lineage{
		OriginID:  rapid.StringN(1, 100, -1).Draw(t, "origin"),
		Attempt:   rapid.IntRange(1, 1000).Draw(t, "attempt"),
		LastError: rapid.String().Draw(t, "lastError"),
	}
	for i := range rapid.IntRange(0, message.MaxHistory).Draw(t, "failures") {
		lin.History = append(lin.History, message.Failure{
			At:        time.Unix(rapid.Int64Range(0, 4e9).Draw(t, fmt.Sprint("at", i)), rapid.Int64Range(0, 999_999_999).Draw(t, fmt.Sprint("ns", i))).UTC(),
			Try:       rapid.IntRange(1, 100).Draw(t, fmt.Sprint("try", i)),
			Outcome:   rapid.SampledFrom([]string{message.OutcomeTransient, message.OutcomePoison}).Draw(t, fmt.Sprint("outcome", i)),
			ErrorType: rapid.String().Draw(t, fmt.Sprint("errorType", i)),
			Message:   rapid.String().Draw(t, fmt.Sprint("message", i)),
		})
	}
	return lin
}

// TestEnvelopeProperty: for any message and lineage, what WithLineage
// returns fits SQS, is enveloped exactly when the other attributes fill it,
// and Unwrap gives back the original body and every attribute, plus the
// lineage; nothing is dropped.
func TestEnvelopeProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		msg := message.Message{ID: rapid.StringN(1, 40, -1).Draw(t, "id"), Body: rapid.String().Draw(t, "body")}
		n := rapid.IntRange(0, 14).Draw(t, "attributes")
		if n > 0 {
			msg.MessageAttributes = map[string]message.Attribute{}
		}
		for i := range n {
			msg.MessageAttributes[fmt.Sprintf("attr-%d", i)] = drawAttribute(t, fmt.Sprint("a", i))
		}
		lin := drawLineage(t)

		out, enveloped, err := message.WithLineage(msg, lin)
		if err != nil {
			t.Fatalf("WithLineage: %v", err)
		}
		if enveloped != (n >= message.MaxAttributes) {
			t.Fatalf("enveloped %v with %d other attributes", enveloped, n)
		}
		if len(out.MessageAttributes) > message.MaxAttributes {
			t.Fatalf("%d attributes sent", len(out.MessageAttributes))
		}

		// What SQS delivers is JSON-shaped: go through JSON as the DLQ does.
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var received message.Message
		if err := json.Unmarshal(data, &received); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}

		inner, wrapped, err := message.Unwrap(received)
		if err != nil {
			t.Fatalf("Unwrap: %v", err)
		}
		if wrapped != enveloped {
			t.Fatalf("Unwrap says wrapped=%v, WithLineage said %v", wrapped, enveloped)
		}
		if inner.Body != msg.Body || inner.ID != msg.ID {
			t.Fatalf("got id %q body %q, want %q %q", inner.ID, inner.Body, msg.ID, msg.Body)
		}
		want := maps.Clone(msg.MessageAttributes)
		if want == nil {
			want = map[string]message.Attribute{}
		}
		encoded, _ := json.Marshal(lin)
		want[message.AttributeName] = message.StringAttribute(string(encoded))
		assert.Equal(t, want, inner.MessageAttributes)

		got, found, err := message.LineageOf(received)
		if err != nil || !found {
			t.Fatalf("LineageOf: found %v, %v", found, err)
		}
		assert.Equal(t, lin, got)
	})
}
