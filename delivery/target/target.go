package target

import (
	"context"

	"github.com/redrive/redrive/message"
)

// Target delivers one message. Deliver never returns an error: every
// failure, including a bad document, is a Result the breaker can record.
type Target interface {
	Deliver(ctx context.Context, doc message.Document) Result
}
