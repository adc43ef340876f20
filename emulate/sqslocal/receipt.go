package sqslocal

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// receiptSep separates the fields of a receipt handle; it cannot occur in
// queue names or message IDs.
const receiptSep = "\x00"

// newReceipt returns a fresh receipt handle for receiving message id from
// the queue called name: the queue, the message and a random nonce, so each
// receive has its own handle.
func (s *Server) newReceipt(name, id string) (string, *apiError) {
	nonce, err := s.random(16)
	if err != nil {
		return "", err
	}
	raw := strings.Join([]string{name, id, hex.EncodeToString(nonce)}, receiptSep)
	return base64.RawURLEncoding.EncodeToString([]byte(raw)), nil
}

// receiptMessageID returns the message ID in a receipt handle issued by the
// queue called name, or ReceiptHandleIsInvalid.
func receiptMessageID(handle, name string) (string, *apiError) {
	if handle == "" {
		return "", missing("ReceiptHandle")
	}
	raw, err := base64.RawURLEncoding.DecodeString(handle)
	parts := strings.Split(string(raw), receiptSep)
	if err != nil || len(parts) != 3 || parts[0] != name || parts[1] == "" {
		return "", errReceiptHandleIsInvalid.errorf("The input receipt handle %q is not a valid receipt handle.", handle)
	}
	return parts[1], nil
}
