package sqslocal

import (
	"regexp"
	"time"
)

// messageGroupIDPattern: 1 to 128 alphanumeric or punctuation characters.
var messageGroupIDPattern = regexp.MustCompile("^[A-Za-z0-9!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~]{1,128}$")

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
type sendResult struct {
	ID                           string `json:"Id,omitempty"`
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
}

// sendMessage enqueues one message.
func (s *Server) sendMessage(_ call, in *sendMessageInput) (any, *apiError) {
	return onQueue(s, in.QueueURL, func(q *queue, now time.Time) (any, *apiError) {
		m, err := s.newMessage(q, &in.sendEntry, now)
		if err != nil {
			return nil, err
		}
		return s.enqueue(q, m), nil
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
			r := s.enqueue(q, m)
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
	delay := q.cfg.DelaySeconds
	if e.DelaySeconds != nil {
		delay = *e.DelaySeconds
		if delay < 0 || delay > maxDelaySeconds {
			return nil, invalidValue("DelaySeconds", delay, "Must be >= 0 and <= 900, if provided.")
		}
	}
	trace, err := checkSystemAttributes(e.MessageSystemAttributes)
	if err != nil {
		return nil, err
	}
	if e.MessageDeduplicationID != nil {
		return nil, invalidValue("MessageDeduplicationId", *e.MessageDeduplicationID, "The request include parameter that is not valid for this queue type")
	}
	group := ""
	if e.MessageGroupID != nil {
		group = *e.MessageGroupID
		if !messageGroupIDPattern.MatchString(group) {
			return nil, invalidValue("MessageGroupId", group, "MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.")
		}
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
		sentAt:      now,
		visibleAt:   now.Add(time.Duration(delay) * time.Second),
	}, nil
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

// enqueue adds m to q and returns SendMessage's answer for it.
func (s *Server) enqueue(q *queue, m *message) sendResult {
	q.add(m)
	return sendResult{
		MessageID:                    m.id,
		MD5OfMessageBody:             m.md5Body,
		MD5OfMessageAttributes:       MD5OfMessageAttributes(m.attrs),
		MD5OfMessageSystemAttributes: MD5OfMessageAttributes(m.systemAttributes()),
	}
}

// systemAttributes are the system attributes the sender set, for their
// digest.
func (m *message) systemAttributes() map[string]MessageAttribute {
	if m.traceHeader == "" {
		return nil
	}
	return map[string]MessageAttribute{"AWSTraceHeader": {DataType: "String", StringValue: m.traceHeader}}
}
