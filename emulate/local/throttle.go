package local

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/smithy-go"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
)

// startThrottle sits in front of the Step Functions API facade: while a
// throttling window is open on the executor's clock, StartExecution
// answers ThrottlingException, as Step Functions does when the account's
// StartExecution token bucket is empty. Other calls pass.
type startThrottle struct {
	next  http.Handler
	clock clock.Clock

	mu      sync.Mutex
	windows [][2]time.Time
	refused int64
}

// throttle opens a window [from, until).
func (t *startThrottle) throttle(from, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.windows = append(t.windows, [2]time.Time{from, until})
}

// throttled reports whether now is in a window, counting a refusal.
func (t *startThrottle) throttled() bool {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.windows {
		if !now.Before(w[0]) && now.Before(w[1]) {
			t.refused++
			return true
		}
	}
	return false
}

// The error a throttled StartExecution answers.
const (
	throttledCode    = "ThrottlingException"
	throttledMessage = "Rate exceeded"
)

// ServeHTTP refuses StartExecution inside a window and passes the rest.
func (t *startThrottle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") == "AWSStepFunctions.StartExecution" && t.throttled() {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"__type":%q,"message":%q}`, throttledCode, throttledMessage)
		return
	}
	t.next.ServeHTTP(w, r)
}

// throttledClient is the in-process Step Functions client behind the
// throttle: inside a window its StartExecution fails as the sfn client's
// does when the API answers ThrottlingException.
type throttledClient struct {
	*sfnapi.Client
	throttle *startThrottle
}

// StartExecution refuses inside a window and starts the execution
// otherwise.
func (c throttledClient) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	if c.throttle.throttled() {
		return nil, &smithy.OperationError{ServiceID: sfn.ServiceID, OperationName: "StartExecution",
			Err: &smithy.GenericAPIError{Code: throttledCode, Message: throttledMessage}}
	}
	return c.Client.StartExecution(ctx, in, optFns...)
}

// count returns how many StartExecution calls were refused.
func (t *startThrottle) count() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}
