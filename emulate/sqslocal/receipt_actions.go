package sqslocal

import (
	"slices"
	"time"
)

type deleteMessageInput struct {
	QueueURL      string `json:"QueueUrl"`
	ReceiptHandle string
}

// deleteMessage deletes the message a receipt handle was issued for.
func (s *Server) deleteMessage(_ call, in *deleteMessageInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		return struct{}{}, deleteByReceipt(q, in.ReceiptHandle, now)
	})
}

// deleteByReceipt deletes the message of handle from q at now. As SQS
// documents, only the handle of the latest receive deletes; an older one,
// or one of a message already gone, succeeds without deleting anything.
// On a FIFO queue the handle expires with the visibility timeout, as SQS
// answers there, and a deletion may unlock the message's group, so it
// wakes the long polls.
func deleteByReceipt(q *queue, handle string, now time.Time) *apiError {
	id, err := receiptMessageID(handle, q.name)
	if err != nil {
		return err
	}
	i := q.find(id)
	if i < 0 || q.messages[i].receipt != handle {
		return nil
	}
	if q.cfg.FifoQueue && q.messages[i].state(now) != StateInFlight {
		return invalidValue("ReceiptHandle", handle, "The receipt handle has expired.")
	}
	q.messages = slices.Delete(q.messages, i, i+1)
	if q.cfg.FifoQueue {
		q.signal()
	}
	return nil
}

// receiptEntry is a batch entry naming a received message.
type receiptEntry struct {
	ID                string `json:"Id"`
	ReceiptHandle     string
	VisibilityTimeout *int
}

func (e receiptEntry) entryID() string { return e.ID }

type receiptBatchInput struct {
	QueueURL string `json:"QueueUrl"`
	Entries  []receiptEntry
}

// batchID is a successful entry of DeleteMessageBatch and
// ChangeMessageVisibilityBatch.
type batchID struct {
	ID string `json:"Id"`
}

// deleteMessageBatch deletes up to ten messages by receipt handle.
func (s *Server) deleteMessageBatch(_ call, in *receiptBatchInput) (any, *apiError) {
	return s.receiptBatch(in, func(q *queue, e receiptEntry, now time.Time) *apiError {
		return deleteByReceipt(q, e.ReceiptHandle, now)
	})
}

type changeVisibilityInput struct {
	QueueURL          string `json:"QueueUrl"`
	ReceiptHandle     string
	VisibilityTimeout *int
}

// changeMessageVisibility sets a received message's visibility timeout,
// counted from now.
func (s *Server) changeMessageVisibility(_ call, in *changeVisibilityInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		return struct{}{}, changeVisibility(q, in.ReceiptHandle, in.VisibilityTimeout, now)
	})
}

// changeMessageVisibilityBatch changes up to ten visibility timeouts.
func (s *Server) changeMessageVisibilityBatch(_ call, in *receiptBatchInput) (any, *apiError) {
	return s.receiptBatch(in, func(q *queue, e receiptEntry, now time.Time) *apiError {
		return changeVisibility(q, e.ReceiptHandle, e.VisibilityTimeout, now)
	})
}

// changeVisibility applies ChangeMessageVisibility's rules: the handle of
// the latest receive, a message still in flight, and at most 12 hours from
// that receive in total.
func changeVisibility(q *queue, handle string, timeout *int, now time.Time) *apiError {
	id, err := receiptMessageID(handle, q.name)
	if err != nil {
		return err
	}
	if timeout == nil {
		return missing("VisibilityTimeout")
	}
	if *timeout < 0 || *timeout > maxVisibilitySeconds {
		return invalidValue("VisibilityTimeout", *timeout, "Must be between 0 and 43200.")
	}
	i := q.find(id)
	if i < 0 || q.messages[i].receipt != handle {
		return invalidValue("ReceiptHandle", handle, "Message does not exist or is not available for visibility timeout change.")
	}
	m := q.messages[i]
	if m.state(now) != StateInFlight {
		return errMessageNotInflight.errorf("Message with receipt handle %s is not in flight.", handle)
	}
	until := now.Add(time.Duration(*timeout) * time.Second)
	if until.After(m.lastRecvAt.Add(maxVisibilitySeconds * time.Second)) {
		return invalidValue("VisibilityTimeout", *timeout, "Total VisibilityTimeout for the message is beyond the limit [43200 seconds]")
	}
	m.visibleAt = until
	if *timeout == 0 {
		q.signal()
	}
	return nil
}

// receiptBatch runs apply on each entry of a receipt-handle batch, failing
// entries on their own.
func (s *Server) receiptBatch(in *receiptBatchInput, apply func(*queue, receiptEntry, time.Time) *apiError) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		if err := checkBatch(in.Entries); err != nil {
			return nil, err
		}
		out := newBatchOutput[batchID]()
		for _, e := range in.Entries {
			if err := apply(q, e, now); err != nil {
				out.fail(e.ID, err)
				continue
			}
			out.Successful = append(out.Successful, batchID{e.ID})
		}
		return out, nil
	})
}
