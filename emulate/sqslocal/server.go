package sqslocal

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// targetPrefix starts the X-Amz-Target header of every SQS JSON call.
const targetPrefix = "AmazonSQS."

// Server is an in-process SQS endpoint. It is safe for concurrent use.
type Server struct {
	opts Options

	mu      sync.Mutex
	queues  map[string]*queue
	deleted map[string]time.Time // queue name -> when it was deleted
	// urlNames are the queue names of URLs parsed (nameFromURL), by URL.
	urlNames map[string]string

	randMu   sync.Mutex // serialises reads of opts.Rand
	requests atomic.Uint64

	closeOnce sync.Once
	closed    chan struct{}
	moving    sync.WaitGroup // message move task goroutines
}

// call is what a handler knows about the request besides its input.
type call struct {
	ctx  context.Context
	base string // scheme://host the client used, for queue URLs
}

// handler runs one action on a raw JSON input.
type handler func(s *Server, c call, body []byte) (any, *apiError)

// action adapts a handler over a decoded input of type In.
func action[In any](fn func(s *Server, c call, in *In) (any, *apiError)) handler {
	return func(s *Server, c call, body []byte) (any, *apiError) {
		var in In
		if err := decodeInput(body, &in); err != nil {
			return nil, err
		}
		return fn(s, c, &in)
	}
}

// handlers maps an action name to its handler.
var handlers = map[string]handler{
	"CreateQueue":                  action((*Server).createQueue),
	"GetQueueUrl":                  action((*Server).getQueueURL),
	"GetQueueAttributes":           action((*Server).getQueueAttributes),
	"SetQueueAttributes":           action((*Server).setQueueAttributes),
	"ListQueues":                   action((*Server).listQueues),
	"PurgeQueue":                   action((*Server).purgeQueue),
	"DeleteQueue":                  action((*Server).deleteQueue),
	"SendMessage":                  action((*Server).sendMessage),
	"SendMessageBatch":             action((*Server).sendMessageBatch),
	"ReceiveMessage":               action((*Server).receiveMessage),
	"DeleteMessage":                action((*Server).deleteMessage),
	"DeleteMessageBatch":           action((*Server).deleteMessageBatch),
	"ChangeMessageVisibility":      action((*Server).changeMessageVisibility),
	"ChangeMessageVisibilityBatch": action((*Server).changeMessageVisibilityBatch),
	"ListDeadLetterSourceQueues":   action((*Server).listDeadLetterSourceQueues),
	"StartMessageMoveTask":         action((*Server).startMessageMoveTask),
	"ListMessageMoveTasks":         action((*Server).listMessageMoveTasks),
	"CancelMessageMoveTask":        action((*Server).cancelMessageMoveTask),
	"TagQueue":                     action((*Server).tagQueue),
	"UntagQueue":                   action((*Server).untagQueue),
	"ListQueueTags":                action((*Server).listQueueTags),
}

// NewServer returns a server with opts, or an error naming an invalid
// option.
func NewServer(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Server{
		opts:    opts,
		queues:  make(map[string]*queue),
		deleted: make(map[string]time.Time),
		closed:  make(chan struct{}),
	}, nil
}

// Close ends every long-polling ReceiveMessage (it returns what it has,
// usually nothing) so an http server in front can shut down at once, and
// stops the running message move tasks (they end FAILED), returning once
// their goroutines have. Later calls are still served, without waiting; a
// task started then fails at once.
func (s *Server) Close() {
	// A task starts under s.mu after checking isClosed, so closing under
	// s.mu means every goroutine that will ever run is counted below.
	s.mu.Lock()
	s.closeOnce.Do(func() { close(s.closed) })
	s.mu.Unlock()
	s.moving.Wait()
}

// ServeHTTP answers one SQS JSON 1.0 call.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Request IDs count requests rather than draw on Rand, so the IDs of a
	// seeded simulation's messages do not depend on how often it polls.
	w.Header().Set("x-amzn-RequestId", requestID(s.requests.Add(1)))
	out, err := s.serve(r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// requestID is the ID of the server's nth request.
func requestID(n uint64) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

// serve checks the request's framing, decodes nothing itself, and runs the
// action's handler.
func (s *Server) serve(r *http.Request) (any, *apiError) {
	if r.Method != http.MethodPost {
		return nil, errUnsupportedOperation.errorf("SQS JSON calls are POST requests, not %s.", r.Method)
	}
	target := r.Header.Get("X-Amz-Target")
	name, ok := strings.CutPrefix(target, targetPrefix)
	if !ok {
		return nil, errUnsupportedOperation.errorf("X-Amz-Target %q does not name an SQS action (AmazonSQS.<Action>).", target)
	}
	h, ok := handlers[name]
	if !ok {
		return nil, errUnsupportedOperation.errorf("sqslocal does not implement %s.", name)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.maxRequestBytes()))
	if err != nil {
		return nil, errRequestTooLarge.errorf("The request body is larger than %d bytes.", s.maxRequestBytes())
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return h(s, call{ctx: r.Context(), base: scheme + "://" + r.Host}, body)
}

// maxRequestBytes bounds a request body: a full batch of the largest
// messages with JSON escaping (up to 6 bytes a character) and framing.
func (s *Server) maxRequestBytes() int64 {
	return int64(s.opts.MaxMessageSize)*6 + 1<<20
}

// newUUID returns a random version-4 UUID from the server's Rand.
func (s *Server) newUUID() (string, *apiError) {
	b, err := s.random(16)
	if err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// random returns n bytes from the server's Rand. A reader that fails (an
// exhausted fixed input, say) is a broken configuration: the call fails
// with an internal error rather than hand out weak message IDs or
// receipt handles.
func (s *Server) random(n int) ([]byte, *apiError) {
	b := make([]byte, n)
	s.randMu.Lock()
	defer s.randMu.Unlock()
	if _, err := io.ReadFull(s.opts.Rand, b); err != nil {
		return nil, errInternal.errorf("sqslocal: read Options.Rand: %v", err)
	}
	return b, nil
}
