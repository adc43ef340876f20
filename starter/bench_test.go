package starter_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/redrive/redrive/test/sfntest"
)

// BenchmarkHandle starts batches of 10 new messages through the local
// Step Functions API over HTTP, for each START_CONCURRENCY, with the API
// answering at once and after 10ms (about what StartExecution takes in a
// region), and reports records started per second.
func BenchmarkHandle(b *testing.B) {
	for _, latency := range []time.Duration{0, 10 * time.Millisecond} {
		for _, concurrency := range []int{1, 8} {
			b.Run(fmt.Sprintf("latency=%v/concurrency=%d", latency, concurrency), func(b *testing.B) {
				e := newEnv(b, map[string]string{"START_CONCURRENCY": fmt.Sprint(concurrency), "BREAKER_KEY": "orders"})
				e.h.Logger = slog.New(slog.DiscardHandler)
				if latency > 0 {
					e.h.SFN = sfntest.NewClient(intercept(b, e.sfn.URL, func(http.ResponseWriter, *http.Request, []byte) bool {
						time.Sleep(latency)
						return false
					}))
				}
				batch := 0
				for b.Loop() {
					recs := make([]events.SQSMessage, 10)
					for i := range recs {
						recs[i] = record(fmt.Sprintf("b%d-m%d", batch, i), `{"order":1}`, nil)
					}
					batch++
					if resp := e.handle(b, events.SQSEvent{Records: recs}); len(resp.BatchItemFailures) > 0 {
						b.Fatalf("batch %d: failures %v", batch, failures(resp))
					}
				}
				b.ReportMetric(float64(10*batch)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}
