package target_test

import (
	"context"
	"testing"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/redrive/redrive/message"
)

// BenchmarkLambdaDeliver measures one delivery through the real Lambda
// client to an in-process consumer over the local Invoke API: the event's
// encoding, the HTTP round trip and the response's reading.
func BenchmarkLambdaDeliver(b *testing.B) {
	_, reg := newConsumers(b)
	tg := newLambdaTarget(b, lambdaClient(b, lambdaapi.NewServer(reg)), "ok")
	benchmarkDeliver(b, tg, testDocument())
}

// BenchmarkSQSDeliver measures one SendMessage through the real SQS client
// to sqslocal, with the lineage attribute and, full, an envelope.
func BenchmarkSQSDeliver(b *testing.B) {
	for _, bb := range []struct {
		name string
		doc  message.Document
	}{
		{name: "attribute", doc: testDocument()},
		{name: "envelope", doc: withAttributes(testDocument(), message.MaxAttributes)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			client, queueURL := localQueue(b, nil)
			benchmarkDeliver(b, newSQSTarget(b, client, queueURL), bb.doc)
		})
	}
}

// benchmarkDeliver delivers doc b.N times and reports deliveries/s.
func benchmarkDeliver(b *testing.B, tg target.Target, doc message.Document) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		if r := tg.Deliver(ctx, doc); r.Outcome != breaker.Success {
			b.Fatalf("deliver: %+v", r)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
