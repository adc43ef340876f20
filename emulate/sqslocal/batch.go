package sqslocal

import "regexp"

// maxBatchEntries is the most entries one batch call takes.
const maxBatchEntries = 10

// batchIDPattern is SQS's rule for batch entry IDs.
var batchIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// batchFailure is one failed entry of a batch call.
type batchFailure struct {
	ID          string `json:"Id"`
	SenderFault bool   `json:"SenderFault"`
	Code        string `json:"Code"`
	Message     string `json:"Message"`
}

// batchOutput is a batch call's answer: the entries that succeeded and
// those that failed.
type batchOutput[T any] struct {
	Successful []T            `json:"Successful"`
	Failed     []batchFailure `json:"Failed"`
}

// newBatchOutput returns an output with empty (not null) lists.
func newBatchOutput[T any]() *batchOutput[T] {
	return &batchOutput[T]{Successful: []T{}, Failed: []batchFailure{}}
}

// fail records entry id as failed with err.
func (o *batchOutput[T]) fail(id string, err *apiError) {
	o.Failed = append(o.Failed, batchFailure{ID: id, SenderFault: err.kind.status < 500, Code: err.kind.code, Message: err.message})
}

// batchEntry is what every batch request entry has.
type batchEntry interface{ entryID() string }

// checkBatch applies the rules every batch call shares, in SQS's order:
// not empty, at most ten entries, well-formed IDs, distinct IDs.
func checkBatch[E batchEntry](entries []E) *apiError {
	switch {
	case len(entries) == 0:
		return errEmptyBatchRequest.errorf("There should be at least one entry in the request.")
	case len(entries) > maxBatchEntries:
		return errTooManyEntries.errorf("Maximum number of entries per request are %d. You have sent %d.", maxBatchEntries, len(entries))
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !batchIDPattern.MatchString(e.entryID()) {
			return errInvalidBatchEntryID.errorf("A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")
		}
	}
	for _, e := range entries {
		if seen[e.entryID()] {
			return errBatchEntryIdsNotDistinct.errorf("Id %s repeated.", e.entryID())
		}
		seen[e.entryID()] = true
	}
	return nil
}
