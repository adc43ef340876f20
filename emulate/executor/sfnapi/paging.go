package sfnapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Page sizes of the listing operations, as AWS documents them.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// pageToken is what a nextToken carries: the listing it belongs to and the
// key of the last item returned. Keying on the item, not an offset, keeps
// pages stable while executions start or events are appended.
type pageToken struct {
	Listing string `json:"l"`
	After   string `json:"a"`
}

// page returns the items of one listing page that keep accepts, after
// token (from the start when token is ""), at most maxResults (0 means the
// default), and the token of the next page ("" when this is the last).
// Positions are found among all items, so an item that stops matching keep
// between two pages (an execution that finished) cannot lose the place.
func page[T any](items []T, key func(T) string, keep func(T) bool, listing, token string, maxResults int32) ([]T, string, error) {
	size := int(maxResults)
	if err := between("maxResults", size, 0, maxPageSize); err != nil {
		return nil, "", err
	}
	if size == 0 {
		size = defaultPageSize
	}
	start := 0
	if token != "" {
		after, err := decodeToken(token, listing)
		if err != nil {
			return nil, "", err
		}
		start = -1
		for i, it := range items {
			if key(it) == after {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return nil, "", &apiError{code: "InvalidToken", message: fmt.Sprintf("Invalid Token: item %q of this listing no longer exists", after)}
		}
	}
	var out []T
	for _, it := range items[start:] {
		if !keep(it) {
			continue
		}
		if len(out) == size {
			return out, encodeToken(listing, key(out[size-1])), nil
		}
		out = append(out, it)
	}
	return out, "", nil
}

func encodeToken(listing, after string) string {
	b, _ := json.Marshal(pageToken{Listing: listing, After: after}) // two strings: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeToken returns the key a token continues after, or InvalidToken when
// the token is malformed or was issued for another listing.
func decodeToken(token, listing string) (string, error) {
	invalid := &apiError{code: "InvalidToken", message: fmt.Sprintf("Invalid Token: %q was not issued for this request", token)}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", invalid
	}
	var t pageToken
	if err := json.Unmarshal(b, &t); err != nil || t.Listing != listing || t.After == "" {
		return "", invalid
	}
	return t.After, nil
}
