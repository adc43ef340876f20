package ddbserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redrive/redrive/clock"
	"github.com/truora/minidyn/server"
)

// targetPrefix starts the X-Amz-Target of every DynamoDB operation.
const targetPrefix = "DynamoDB_20120810."

// contentType is the media type of DynamoDB's JSON protocol.
const contentType = "application/x-amz-json-1.0"

// local holds the operations the handler answers itself.
var local = map[string]func(*Handler, []byte) (any, *apiError){
	"ListTables":         (*Handler).listTables,
	"DescribeTimeToLive": (*Handler).describeTimeToLive,
	"UpdateTimeToLive":   (*Handler).updateTimeToLive,
}

// describedTable is how an answer of minidyn's describes a table: the
// member holding the description and the TableStatus to report.
type describedTable struct {
	member, status string
}

// forwarded holds the operations minidyn serves. Those whose answer
// describes a table are also the ones that touch minidyn's table map,
// which it does not lock: the handler runs them alone.
var forwarded = map[string]*describedTable{
	"CreateTable":        {"TableDescription", "ACTIVE"},
	"UpdateTable":        {"TableDescription", "ACTIVE"},
	"DeleteTable":        {"TableDescription", "DELETING"},
	"DescribeTable":      {"Table", "ACTIVE"},
	"PutItem":            nil,
	"GetItem":            nil,
	"UpdateItem":         nil,
	"DeleteItem":         nil,
	"Query":              nil,
	"Scan":               nil,
	"BatchWriteItem":     nil,
	"BatchGetItem":       nil,
	"TransactWriteItems": nil,
	"TransactGetItems":   nil,
}

// Handler serves the DynamoDB JSON API from the minidyn server it owns; see
// the package documentation for what it adds. Make one with New.
type Handler struct {
	ddb      *server.Server
	requests atomic.Uint64 // numbers the request IDs

	// mu lets the table operations run alone (write lock) and the others
	// together (read lock), and guards tables.
	mu sync.RWMutex
	// tables holds the tables created through the handler.
	tables map[string]tableState

	// clock is the clock TTL expiry reads (see Sweep); nil: none expire.
	clock clock.Clock
	// written counts writes, for the sweeps; sweeping is set while one
	// runs.
	written  atomic.Uint64
	sweeping atomic.Bool
}

// tableState is what the handler knows of a table: the request that
// created it, its key attributes, and its TTL setting.
type tableState struct {
	create json.RawMessage
	keys   []string
	ttl    timeToLive
}

// New returns a Handler with a new, empty minidyn server. With a clock,
// items whose TTL has passed on it are deleted (see Sweep); nil keeps
// every item.
func New(clk clock.Clock) *Handler {
	return &Handler{ddb: server.NewServer(), tables: map[string]tableState{}, clock: clk}
}

// ServeHTTP answers one DynamoDB API request, named by its X-Amz-Target.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// DynamoDB's request IDs are 52 upper-case letters and digits; a count
	// keeps a seeded local run reproducible.
	w.Header().Set("x-amzn-RequestId", fmt.Sprintf("%052X", h.requests.Add(1)))
	target := r.Header.Get("X-Amz-Target")
	op, ok := strings.CutPrefix(target, targetPrefix)
	do, isLocal := local[op]
	described, isForwarded := forwarded[op]
	if known := isLocal || isForwarded; r.Method != http.MethodPost || !ok || !known {
		writeError(w, &apiError{http.StatusBadRequest, "UnknownOperationException", fmt.Sprintf("An unknown operation was requested: %q", target)})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil || !isObject(body) {
		writeError(w, serialization("the request body is not a JSON object"))
		return
	}
	if isLocal {
		out, aerr := do(h, body)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	h.forward(w, r, op, body, described)
}

// forward has minidyn serve op, with body as the request's, and answers
// its response, rewritten where it describes a table or answers a Select
// COUNT.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, op string, body []byte, described *describedTable) {
	in := r.Clone(r.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	out, err := h.serve(rec, in, op, body, described)
	if rec.Code != http.StatusOK {
		relayError(w, rec)
		return
	}
	defer h.afterWrite(op)
	if out == nil && err == nil && (op == "Scan" || op == "Query") && selectsCount(body) {
		out, err = countOnly(rec.Body.Bytes())
	}
	switch {
	case err != nil:
		writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", fmt.Sprintf("rewrite the %s response: %v", op, err)})
	case out != nil:
		writeJSON(w, http.StatusOK, out)
	default:
		respond(w, http.StatusOK, rec.Body.Bytes())
	}
}

// serve has minidyn answer in into rec. An operation that describes a
// table runs alone, and serve returns its answer rewritten (see describe);
// the others run together, and serve returns nil.
func (h *Handler) serve(rec *httptest.ResponseRecorder, in *http.Request, op string, body []byte, described *describedTable) (map[string]json.RawMessage, error) {
	if described == nil {
		h.mu.RLock()
		defer h.mu.RUnlock()
		h.ddb.ServeHTTP(rec, in)
		return nil, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ddb.ServeHTTP(rec, in)
	if rec.Code != http.StatusOK {
		return nil, nil
	}
	return h.describe(op, *described, body, rec.Body.Bytes())
}

// isObject reports whether body is a JSON object, cheaply: it starts as
// one and is valid JSON.
func isObject(body []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) && json.Valid(body)
}

// selectsCount reports whether a Scan or Query request asks for Select
// COUNT.
func selectsCount(body []byte) bool {
	var in struct{ Select string }
	return json.Unmarshal(body, &in) == nil && in.Select == "COUNT"
}

// countOnly rewrites minidyn's answer to a Scan or Query as the answer to
// its Select COUNT: no Items, and Count and ScannedCount always present
// (minidyn leaves out a zero Count and every ScannedCount).
func countOnly(out []byte) (map[string]json.RawMessage, error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, err
	}
	delete(resp, "Items")
	if resp["Count"] == nil {
		resp["Count"] = json.RawMessage("0")
	}
	resp["ScannedCount"] = resp["Count"]
	return resp, nil
}

// writeJSON answers v, encoded, with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v) // v is plain data
	respond(w, status, body)
}

// respond answers body with status as DynamoDB does: in its media type,
// with the body's CRC32 in X-Amz-Crc32, which the SDKs check (the Go SDK
// finds a missing one wrong, and logs a warning for every response).
func respond(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
	w.WriteHeader(status)
	_, _ = w.Write(body) // an error is a gone client
}
