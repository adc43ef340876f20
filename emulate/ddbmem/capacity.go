package ddbmem

// Capacity is the request units DynamoDB on demand would bill for the
// operations so far (its ReturnConsumedCapacity TOTAL, the indexes'
// writes included), an item's size taken as its record's: its attribute
// names and values, with a few bytes of framing each.
type Capacity struct {
	// ReadUnits: a unit per 4 KB begun of the items a GetItem or Query
	// read (at least one per call), half that when eventually consistent.
	ReadUnits float64
	// WriteUnits: a unit per KB begun of the larger of an item before and
	// after a write (at least one; a write whose condition failed bills
	// the item as it is), and as much again for each index entry the
	// write puts or deletes.
	WriteUnits int64
}

// Capacity returns the units billed so far.
func (db *DB) Capacity() Capacity {
	db.mu.Lock()
	defer db.mu.Unlock()
	return Capacity{ReadUnits: float64(db.readHalves) / 2, WriteUnits: db.writeUnits}
}

// writeUnits is what a write of an item of n bytes bills.
func writeUnits(n int) int64 { return max(1, int64((n+1023)/1024)) }

// billRead adds a read of n bytes of items; call with db.mu held.
func (db *DB) billRead(n int, consistent bool) {
	halves := max(1, int64((n+4095)/4096))
	if consistent {
		halves *= 2
	}
	db.readHalves += halves
}

// billWrite adds a write of an item that was old and becomes item (either
// "" when absent); call with db.mu held.
func (db *DB) billWrite(old, item record) {
	db.writeUnits += writeUnits(max(len(old), len(item)))
}

// indexUnits is what one put or delete of item's entry in ix bills.
func (ix *index) indexUnits(item record) int64 { return writeUnits(projectedSize(ix.projected, item)) }

// projectedSize is the size of what an index projecting projected (nil:
// ALL) holds of item: what its writes and reads bill.
func projectedSize(projected []string, item record) int {
	if projected == nil {
		return len(item)
	}
	n := 0
	for _, name := range projected {
		n += len(name) + len(item.attr(name))
	}
	return n
}
