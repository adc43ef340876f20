package starter_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/test/sfntest"
)

// intercept is an endpoint in front of upstream that shows every request
// and its body to fn first, and passes it on unless fn answered it.
func intercept(tb testing.TB, upstream string, fn func(w http.ResponseWriter, r *http.Request, body []byte) (answered bool)) string {
	tb.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		tb.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !fn(w, r, body) {
			proxy.ServeHTTP(w, r)
		}
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// throttling is a Step Functions endpoint in front of upstream that
// answers StartExecution of the named executions with ThrottlingException,
// as Step Functions does when the account's StartExecution bucket is
// empty.
func throttling(t *testing.T, upstream string, names ...string) string {
	t.Helper()
	return intercept(t, upstream, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		var in struct{ Name string }
		if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".StartExecution") || json.Unmarshal(body, &in) != nil || !slices.Contains(names, in.Name) {
			return false
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.swf.base.model#ThrottlingException","message":"Rate exceeded"}`))
		return true
	})
}

func TestThrottledRecordsStayInTheDLQ(t *testing.T) {
	e := newEnv(t, map[string]string{"BREAKER_KEY": "orders", "START_CONCURRENCY": "3"})
	recs := records(8)
	e.h.SFN = sfntest.NewClient(throttling(t, e.sfn.URL, "m-02-a1", "m-05-a1"))

	resp := e.handle(t, events.SQSEvent{Records: recs})
	assert.Equal(t, []string{"m-02", "m-05"}, failures(resp))
	assert.Equal(t, int64(2), e.metrics.Get("orders", telemetry.StartThrottled))
	assert.Len(t, e.sfn.Executions(t), 6, "the others started")
	assert.Empty(t, e.parked(t), "nothing parked")

	// The event source delivers the two again, the throttling is over.
	e.h.SFN = e.sfn.Client
	resp = e.handle(t, events.SQSEvent{Records: []events.SQSMessage{recs[2], recs[5]}})
	assert.Empty(t, failures(resp))
	var want []string
	for _, r := range recs {
		want = append(want, r.MessageId+"-a1")
	}
	assert.ElementsMatch(t, want, e.sfn.Executions(t), "nothing lost")
	assert.Zero(t, e.metrics.Get("orders", telemetry.Duplicates))
}

func TestOtherStartErrorsStayInTheDLQ(t *testing.T) {
	e := newEnv(t, nil)
	e.h.Config.StateMachineARN = e.sfn.StateMachineARN + "-gone"
	resp := e.handle(t, events.SQSEvent{Records: records(2)})
	assert.Equal(t, []string{"m-00", "m-01"}, failures(resp))
	assert.Zero(t, e.metrics.Total(telemetry.StartThrottled), "not throttling")
	assert.Empty(t, e.parked(t))
}
