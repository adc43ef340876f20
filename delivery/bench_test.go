package delivery_test

import (
	"testing"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbmem"
)

// BenchmarkBeginComplete measures one delivery's ledger writes on the
// in-process table: Begin of a new record, then Complete with a transient failure.
func BenchmarkBeginComplete(b *testing.B) {
	db := ddbmem.New()
	if _, err := db.CreateTable(b.Context(), dynamo.TableInput("bench")); err != nil {
		b.Fatal(err)
	}
	ledger := delivery.New(db, "bench", nil)
	ctx := b.Context()
	id := delivery.ID{OriginID: "059f36b4-87a3-44ab-83d2-661975830a7d", Attempt: 1}
	for b.Loop() {
		id.Try++
		rec, began, err := ledger.Begin(ctx, id, ticket, lease)
		if err != nil || !began {
			b.Fatalf("begin %s: began %t, %v", id, began, err)
		}
		if _, err := ledger.Complete(ctx, rec, breaker.Transient, "Timeout", "consumer timed out"); err != nil {
			b.Fatal(err)
		}
	}
}
