package sqslocal

import "time"

// sendEntry is one message to send, in SendMessage or a batch entry.
type sendEntry struct {
	ID                      string `json:"Id"`
	MessageBody             *string
	DelaySeconds            *int
	MessageAttributes       map[string]wireAttribute
	MessageSystemAttributes map[string]wireAttribute
	MessageDeduplicationID  *string `json:"MessageDeduplicationId"`
	MessageGroupID          *string `json:"MessageGroupId"`
}

func (e sendEntry) entryID() string { return e.ID }

// size is the entry's message size as SQS counts it: the body plus each
// message attribute's name, data type and value.
func (e *sendEntry) size() int {
	n := 0
	if e.MessageBody != nil {
		n = len(*e.MessageBody)
	}
	for name, a := range e.MessageAttributes {
		n += a.size(name)
	}
	return n
}

type sendMessageInput struct {
	QueueURL string `json:"QueueUrl"`
	sendEntry
}

// sendResult is SendMessage's answer, and a batch's successful entry.
// SequenceNumber is a FIFO queue's only.
type sendResult struct {
	ID                           string `json:"Id,omitempty"`
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
	SequenceNumber               string `json:"SequenceNumber,omitempty"`
}

// sendMessage enqueues one message.
func (s *Server) sendMessage(_ call, in *sendMessageInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		m, err := s.newMessage(q, &in.sendEntry, now)
		if err != nil {
			return nil, err
		}
		return s.enqueue(q, m, now), nil
	})
}

type sendMessageBatchInput struct {
	QueueURL string `json:"QueueUrl"`
	Entries  []sendEntry
}

// sendMessageBatch enqueues up to ten messages; an invalid entry fails on
// its own while the others are sent.
func (s *Server) sendMessageBatch(_ call, in *sendMessageBatchInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		if err := checkBatch(in.Entries); err != nil {
			return nil, err
		}
		if err := checkFIFOBatch(q, in.Entries); err != nil {
			return nil, err
		}
		total := 0
		for i := range in.Entries {
			total += in.Entries[i].size()
		}
		if total > s.opts.MaxMessageSize {
			return nil, errBatchRequestTooLong.errorf("Batch requests cannot be longer than %d bytes. You have sent %d bytes.", s.opts.MaxMessageSize, total)
		}
		out := newBatchOutput[sendResult]()
		for i := range in.Entries {
			e := &in.Entries[i]
			m, err := s.newMessage(q, e, now)
			if err != nil {
				out.fail(e.ID, err)
				continue
			}
			r := s.enqueue(q, m, now)
			r.ID = e.ID
			out.Successful = append(out.Successful, r)
		}
		return out, nil
	})
}

// newMessage validates e for q and returns the message, not yet enqueued.
// It runs under s.mu.
func (s *Server) newMessage(q *queue, e *sendEntry, now time.Time) (*message, *apiError) {
	if e.MessageBody == nil || *e.MessageBody == "" {
		return nil, missing("MessageBody")
	}
	body := *e.MessageBody
	if r, bad := firstInvalidChar(body); bad {
		return nil, errInvalidMessageContents.errorf("Invalid binary character '#x%X' was found in the message body, the set of allowed characters is available at http://www.w3.org/TR/REC-xml/#charsets", r)
	}
	attrs, err := checkMessageAttributes(e.MessageAttributes)
	if err != nil {
		return nil, err
	}
	delay, err := messageDelay(q, e)
	if err != nil {
		return nil, err
	}
	trace, err := checkSystemAttributes(e.MessageSystemAttributes)
	if err != nil {
		return nil, err
	}
	group, dedup, err := fifoIDs(q, e)
	if err != nil {
		return nil, err
	}
	if e.size() > q.cfg.MaximumMessageSize {
		return nil, errInvalidParameterValue.errorf("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", q.cfg.MaximumMessageSize)
	}
	id, err := s.newUUID()
	if err != nil {
		return nil, err
	}
	return &message{
		id:          id,
		body:        body,
		attrs:       attrs,
		md5Body:     MD5OfBody(body),
		traceHeader: trace,
		groupID:     group,
		dedupID:     dedup,
		sentAt:      now,
		visibleAt:   now.Add(time.Duration(delay) * time.Second),
	}, nil
}

// messageDelay is the delay of e on q: its DelaySeconds or the queue's.
// A FIFO queue takes only the queue's, and refuses a delay of e's own.
func messageDelay(q *queue, e *sendEntry) (int, *apiError) {
	switch {
	case e.DelaySeconds == nil:
		return q.cfg.DelaySeconds, nil
	case q.cfg.FifoQueue && *e.DelaySeconds != 0:
		return 0, invalidValue("DelaySeconds", *e.DelaySeconds, "The request include parameter that is not valid for this queue type.")
	case *e.DelaySeconds < 0 || *e.DelaySeconds > maxDelaySeconds:
		return 0, invalidValue("DelaySeconds", *e.DelaySeconds, "Must be >= 0 and <= 900, if provided.")
	}
	return *e.DelaySeconds, nil
}

// fifoIDs returns the MessageGroupId and MessageDeduplicationId of e on
// q. A FIFO queue needs a group and a deduplication ID, which
// ContentBasedDeduplication derives from the body when e has none; a
// standard queue takes a group (fair queues) but no deduplication ID.
func fifoIDs(q *queue, e *sendEntry) (group, dedup string, err *apiError) {
	if e.MessageDeduplicationID != nil {
		if !q.cfg.FifoQueue {
			return "", "", invalidValue("MessageDeduplicationId", *e.MessageDeduplicationID, "The request include parameter that is not valid for this queue type")
		}
		if err := checkFIFOID("MessageDeduplicationId", *e.MessageDeduplicationID); err != nil {
			return "", "", err
		}
		dedup = *e.MessageDeduplicationID
	}
	if e.MessageGroupID != nil {
		if err := checkFIFOID("MessageGroupId", *e.MessageGroupID); err != nil {
			return "", "", err
		}
		group = *e.MessageGroupID
	}
	if !q.cfg.FifoQueue {
		return group, "", nil
	}
	if err := checkFIFOEntry(q, e); err != nil {
		return "", "", err
	}
	if dedup == "" {
		dedup = contentDedupID(*e.MessageBody)
	}
	return group, dedup, nil
}

// checkFIFOEntry applies a FIFO queue's rules for the IDs an entry must
// have: MessageGroupId always, MessageDeduplicationId unless the queue
// has ContentBasedDeduplication.
func checkFIFOEntry(q *queue, e *sendEntry) *apiError {
	if e.MessageGroupID == nil {
		return missing("MessageGroupId")
	}
	if e.MessageDeduplicationID == nil && !q.cfg.ContentBasedDeduplication {
		return errInvalidParameterValue.errorf("The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly")
	}
	return nil
}

// checkFIFOBatch fails a SendMessageBatch to a FIFO queue as a whole, as
// SQS does, when an entry lacks an ID the queue needs (a SendMessage
// fails with the same message, MissingParameter for the group).
func checkFIFOBatch(q *queue, entries []sendEntry) *apiError {
	if !q.cfg.FifoQueue {
		return nil
	}
	for i := range entries {
		if err := checkFIFOEntry(q, &entries[i]); err != nil {
			return errInvalidParameterValue.errorf("%s", err.message)
		}
	}
	return nil
}

// checkSystemAttributes accepts the one system attribute a sender may
// set, AWSTraceHeader (a String), and returns its value.
func checkSystemAttributes(in map[string]wireAttribute) (string, *apiError) {
	trace := ""
	for name, a := range in {
		if name != "AWSTraceHeader" {
			return "", errInvalidParameterValue.errorf("Message system attribute name '%s' is invalid: the only one a sender may set is AWSTraceHeader.", name)
		}
		if a.DataType != "String" || a.StringValue == "" || a.BinaryValue != nil || a.StringListValues != nil || a.BinaryListValues != nil {
			return "", errInvalidParameterValue.errorf("Message system attribute AWSTraceHeader must be of type String with a non-empty StringValue.")
		}
		trace = a.StringValue
	}
	return trace, nil
}

// enqueue adds m, sent at now, to q and returns SendMessage's answer for
// it. On a FIFO queue a duplicate of a message accepted within the
// deduplication interval is not added: the answer names the first
// message, with the digests of what was sent this time.
func (s *Server) enqueue(q *queue, m *message, now time.Time) sendResult {
	r := sendResult{
		MessageID:                    m.id,
		MD5OfMessageBody:             m.md5Body,
		MD5OfMessageAttributes:       MD5OfMessageAttributes(m.attrs),
		MD5OfMessageSystemAttributes: MD5OfMessageAttributes(m.systemAttributes()),
	}
	if !q.cfg.FifoQueue {
		q.add(m)
		return r
	}
	if first, dup := q.duplicate(m, now); dup {
		r.MessageID, r.SequenceNumber = first.messageID, first.sequence
		return r
	}
	q.add(m)
	q.remember(m, now)
	r.SequenceNumber = m.sequence
	return r
}

// systemAttributes are the system attributes the sender set, for their
// digest.
func (m *message) systemAttributes() map[string]MessageAttribute {
	if m.traceHeader == "" {
		return nil
	}
	return map[string]MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: m.traceHeader}}
}
