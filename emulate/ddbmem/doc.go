// Package ddbmem is an in-process DynamoDB table store for simulations:
// the item operations the stack's tasks make (GetItem, PutItem,
// UpdateItem, DeleteItem and Query, with the SDK's own method signatures,
// so it satisfies the tasks' small client interfaces) served straight from
// memory, without the SDK's middleware, HTTP or JSON.
//
// Expressions (ConditionExpression, UpdateExpression,
// KeyConditionExpression, FilterExpression, ProjectionExpression) are
// evaluated by minidyn's interpreter, as on the embedded endpoint
// (emulate/ddbserver), each expression string parsed once (see expr.go),
// but for the simple updates and conditions the tasks write most, which
// are decided and written on the stored records directly (see simple.go),
// so conditional writes keep their semantics: a failed condition is a
// *types.ConditionalCheckFailedException and changes nothing. What
// differs is the storage: items by primary key in a map, each encoded in
// one immutable string (decoded to the SDK's form when read, and to the
// interpreter's only for an expression to read or update), and each
// global secondary index as ordered partitions whose entries point into
// those strings, so a write costs O(log n) and a Query reads only its
// partition, where minidyn sorts the whole table on every new key and
// scans every item on every Query. A run of `redrive run` with 50,000
// messages spent most of its time there.
//
// The interpreter is given only the attributes an expression names, so
// the others keep their exact values where it would change them (it
// turns every number of an item it updates into a float64 and back, and
// merges the duplicate members of sets), and an attribute it cannot read
// (an empty binary, a false NULL) fails only an expression that names it.
// A number a simple update sets keeps its text too.
//
// Departures from DynamoDB, besides those of the interpreter: tables are
// made with CreateTable from an SDK input and are active at once; Limit
// counts the items a Query evaluates in its partition before the filter,
// as DynamoDB does, but there is no 1 MB page; TTL is not applied; reads
// are always consistent. There is no HTTP edge: a stack that serves its
// table to other processes uses emulate/ddbserver.
package ddbmem
