package target

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
	"github.com/redrive/redrive/message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMD5MatchesSQS checks the digests against what SQS answers to
// SendMessage (the sqs client verifies those answers itself, so a server
// with a wrong digest fails the send).
func TestMD5MatchesSQS(t *testing.T) {
	client := sqstest.Start(t, sqslocal.Options{}).Client
	queue := sqstest.CreateQueue(t, client, nil)

	tests := []struct {
		name string
		msg  message.Message
	}{
		{name: "no attributes", msg: message.Message{Body: "hello"}},
		{name: "one string", msg: message.Message{Body: "{}", MessageAttributes: map[string]message.Attribute{"tenant": message.StringAttribute("acme")}}},
		{name: "every type, unicode", msg: message.Message{
			Body: "naïve café ✓",
			MessageAttributes: map[string]message.Attribute{
				"tenant":     {DataType: "String.tenant", StringValue: "acmé"},
				"priority":   {DataType: "Number", StringValue: "-7.25e3"},
				"signature":  {DataType: "Binary", BinaryValue: []byte{0, 0xde, 0xad, 0xbe, 0xef}},
				"compressed": {DataType: "Binary.gzip", BinaryValue: []byte{0x1f, 0x8b}},
				"Z-last":     message.StringAttribute("z"),
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := client.SendMessage(context.Background(), &sqs.SendMessageInput{
				QueueUrl: aws.String(queue.URL), MessageBody: aws.String(tt.msg.Body), MessageAttributes: tt.msg.SQSAttributes(),
			})
			require.NoError(t, err)
			record := tt.msg.Event()
			assert.Equal(t, aws.ToString(out.MD5OfMessageBody), md5OfBody(record.Body))
			assert.Equal(t, aws.ToString(out.MD5OfMessageAttributes), md5OfMessageAttributes(record.MessageAttributes))
		})
	}
}
