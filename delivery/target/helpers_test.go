package target_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redrive/redrive/message"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// messageID is the id of the message testDocument redrives.
const messageID = "059f36b4-87a3-44ab-83d2-661975830a7d"

// testDocument is a message on its second round trip, with system
// attributes, string, number and binary message attributes, and one
// failure in its history.
func testDocument() message.Document {
	at := time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)
	return message.Document{
		Message: message.Message{
			ID:   messageID,
			Body: `{"orderId":"o-1001","amount":42.5,"note":"naïve café ✓"}`,
			Attributes: map[string]string{
				"ApproximateReceiveCount":          "3",
				"SentTimestamp":                    "1741944000000",
				"SenderId":                         "AIDAIENQZJOLO23YVJ4VO",
				"ApproximateFirstReceiveTimestamp": "1741944000100",
			},
			MessageAttributes: map[string]message.Attribute{
				"tenant":    message.StringAttribute("acme"),
				"priority":  {DataType: "Number", StringValue: "7"},
				"signature": {DataType: "Binary", BinaryValue: []byte{0xde, 0xad, 0xbe, 0xef}},
			},
		},
		OriginID:   "0e3a3b1c-5d7f-4a8e-9b2c-1f6d8e4a7c30",
		Attempt:    2,
		BreakerKey: "orders",
		ReceivedAt: at,
		Tries:      1,
		History: []message.Failure{{
			At: at.Add(-time.Hour), Try: 3, Outcome: message.OutcomeTransient,
			ErrorType: "DownstreamUnavailable", Message: "orders API answered 503", BreakerState: "OPEN",
		}},
	}
}

// withAttributes returns doc with n String message attributes named
// "attr0".."attr<n-1>" instead of its own.
func withAttributes(doc message.Document, n int) message.Document {
	doc.Message.MessageAttributes = make(map[string]message.Attribute, n)
	for i := range n {
		doc.Message.MessageAttributes[fmt.Sprintf("attr%d", i)] = message.StringAttribute(fmt.Sprintf("value %d", i))
	}
	return doc
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var pretty bytes.Buffer
		require.NoError(t, json.Indent(&pretty, got, "", "  "))
		pretty.WriteByte('\n')
		require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	return want
}
