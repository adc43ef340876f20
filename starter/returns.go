package starter

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
)

// ErrorTypeReturned is the history's error type for a redriven message
// that came back to the DLQ: with the sqs target, its consumer failed it.
const ErrorTypeReturned = "ReturnedToDLQ"

// returnFailure is the failure a returning message adds to its history
// (sqs target). The consumer's own error is not known here, nor which try
// of the last round trip sent the message, so it is try 1.
func returnFailure(at time.Time, lastAttempt int) message.Failure {
	return message.Failure{
		At:        at,
		Try:       1,
		Outcome:   message.OutcomeTransient,
		ErrorType: ErrorTypeReturned,
		Message:   "the consumer failed the message redriven on attempt " + strconv.Itoa(lastAttempt) + "; it returned to the dead-letter queue",
	}
}

// recordReturn records a consumer failure of a message that came back to
// the DLQ, as a Transient outcome on its breaker under the breaker's
// current generation. Through Observe's rules it counts only while the
// breaker is CLOSED (or FORCED_CLOSED, which records but never trips): in
// OPEN nothing was admitted, and in HALF_OPEN only a canary's leased
// outcome counts, so a late return cannot re-open a recovering breaker.
//
// It runs after the execution started, so a DLQ delivery that is retried
// or duplicated counts once. A breaker error is logged and not returned:
// the message is already being redriven, and failing the record would
// start nothing new but count the failure again.
func (h *Handler) recordReturn(ctx context.Context, key string, log *slog.Logger) {
	row, err := h.Breaker.Status(ctx, key)
	if err == nil {
		row, err = h.Breaker.Record(ctx, key, row, breaker.Ticket{Generation: row.Generation}, breaker.Transient)
	}
	if err != nil {
		log.ErrorContext(ctx, "could not record the consumer failure on the breaker", slog.Any("error", err))
		return
	}
	h.Metrics.Count(key, telemetry.Transient, 1)
	log.InfoContext(ctx, "consumer failure recorded: the message returned to the DLQ", slog.String("breakerState", row.State.String()))
}
