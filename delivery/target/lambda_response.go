package target

import (
	"bytes"
	"encoding/json"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// functionError reads the error document of an invocation that failed with
// X-Amz-Function-Error kind ("Unhandled"): its errorType and errorMessage.
// A document without an errorType (Lambda's timeout document in older
// runtimes) or that is not one is named by kind, with the raw payload as
// the message.
func functionError(kind string, payload []byte) (errorType, msg string) {
	var doc struct {
		Type    string `json:"errorType"`
		Message string `json:"errorMessage"`
	}
	if json.Unmarshal(payload, &doc) != nil {
		return kind, string(payload)
	}
	if doc.Type == "" {
		doc.Type = kind
	}
	if doc.Message == "" {
		doc.Message = string(payload)
	}
	return doc.Type, doc.Message
}

// batchItemFailure reads a successful invocation's response as Lambda's SQS
// event source mapping does with ReportBatchItemFailures, for the one
// record messageID: "" when the record succeeded, else why it failed.
//
// Success: an empty or null response, a response that is not a JSON
// object, or one whose batchItemFailures is absent, null or empty. Failure
// of the whole batch, so of the record: a response that is not JSON, a
// batchItemFailures that is not a list of {"itemIdentifier"}, or any entry
// in it, whether it names the record or not (an empty, missing or unknown
// itemIdentifier fails the whole batch in Lambda too).
func batchItemFailure(payload []byte, messageID string) string {
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		return ""
	}
	if !jsonv1.Valid(payload) {
		return fmt.Sprintf("the consumer's response is not JSON (%d bytes); Lambda fails the whole batch", len(payload))
	}
	if payload[0] != '{' {
		return ""
	}
	var resp struct {
		BatchItemFailures []struct {
			ItemIdentifier *string `json:"itemIdentifier"`
		} `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(payload, &resp); err != nil {
		return fmt.Sprintf("the consumer's batchItemFailures is not a list of {\"itemIdentifier\": string} (%v); Lambda fails the whole batch", err)
	}
	for _, f := range resp.BatchItemFailures {
		if f.ItemIdentifier != nil && *f.ItemIdentifier == messageID {
			return fmt.Sprintf("the consumer reported message %q in batchItemFailures", messageID)
		}
	}
	if len(resp.BatchItemFailures) == 0 {
		return ""
	}
	first := resp.BatchItemFailures[0].ItemIdentifier
	if first == nil || *first == "" {
		return "the consumer's batchItemFailures has an entry without an itemIdentifier; Lambda fails the whole batch"
	}
	return fmt.Sprintf("the consumer's batchItemFailures names %q, not the record %q; Lambda fails the whole batch", *first, messageID)
}
