package attempt_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/claimcheck"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
)

// bodies is an attempt.Redeemer that gives a body back, or fails with err.
type bodies struct {
	body string
	err  error
}

func (b bodies) Redeem(_ context.Context, doc message.Document) (message.Document, error) {
	if b.err != nil {
		return doc, b.err
	}
	doc.Message.Body, doc.BodyRef = b.body, nil
	return doc, nil
}

// checked is a new document whose body was claim-checked.
func checked() message.Document {
	doc := newDocument("orders")
	doc.Message.Body = ""
	doc.BodyRef = &message.BodyRef{Bucket: "bodies", Key: "bodies/k", Size: 5, SHA256: strings.Repeat("a", 64)}
	return doc
}

// The consumer gets the body back; the document the execution carries on
// keeps the reference, not the body.
func TestAClaimCheckedBodyIsDeliveredAndStaysOutOfTheDocument(t *testing.T) {
	f := newFixture(t, options{}, target.Delivered())
	f.handler.Bodies = bodies{body: "large"}
	doc, err := f.run(t, checked())
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, doc.Next)
	f.target.mu.Lock()
	require.Len(t, f.target.got, 1)
	assert.Equal(t, "large", f.target.got[0].Message.Body, "the consumer got the body")
	f.target.mu.Unlock()
	assert.Empty(t, doc.Message.Body)
	assert.NotNil(t, doc.BodyRef)
}

// A body S3 no longer has, or one that is corrupt, is parked at once
// (no retry brings it back), before the breaker is asked; a body S3 cannot
// serve for now waits like a table that fails.
func TestABodyThatCannotBeHadBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		next message.Next
	}{
		{"lost", fmt.Errorf("%w: s3://bodies/k", claimcheck.ErrLost), message.NextPark},
		{"corrupt", fmt.Errorf("%w: 3 bytes", claimcheck.ErrCorrupt), message.NextPark},
		{"s3 down", errors.New("s3: 503 Slow Down"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, options{}, target.Delivered())
			f.handler.Bodies = bodies{err: tc.err}
			doc, err := f.run(t, checked())
			assert.Zero(t, f.target.calls(), "nothing delivered")
			if tc.next == "" {
				var unavailable *attempt.TableUnavailable
				require.ErrorAs(t, err, &unavailable, "retried as the table's failures are")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.next, doc.Next)
			assert.True(t, strings.HasPrefix(doc.ParkReason, "body unavailable: "), doc.ParkReason)
			row, err := f.breaker.Status(t.Context(), "orders")
			require.NoError(t, err)
			assert.Empty(t, row.Leases, "no canary lease taken for it")
		})
	}
}
