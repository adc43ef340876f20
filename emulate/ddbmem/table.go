package ddbmem

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	mtypes "github.com/truora/minidyn/types"
)

// conditionFailed is DynamoDB's message for a failed condition.
const conditionFailed = "The conditional request failed"

// DB holds tables in memory and serves their item operations. It is safe
// for concurrent use: operations run one at a time, as on a single
// DynamoDB partition, so a conditional write sees every write before it.
// Make one with New.
type DB struct {
	mu      sync.Mutex
	tables  map[string]*table
	scratch []byte // where encode makes a record
	// readHalves and writeUnits count the request units billed (in half
	// read units): see Capacity.
	readHalves, writeUnits int64
}

// table is one table: its key schema, its items (records) by primary key
// (a substring of the record where it can be: see valueKey), and its
// global secondary indexes.
type table struct {
	hash, rng string // key attributes; rng "" without a sort key
	items     map[string]record
	indexes   map[string]*index
}

// index is a global secondary index: its partitions, each ordered by
// sort key, and the attributes it projects.
type index struct {
	hash, rng  string
	partitions map[string]*ordered
	// projected names the attributes a Query on the index returns (the
	// table's and the index's keys, and INCLUDE's NonKeyAttributes); nil
	// for ALL.
	projected []string
}

// New returns an empty DB.
func New() *DB {
	return &DB{tables: map[string]*table{}}
}

// CreateTable makes a table from in's key schema and global secondary
// indexes (ALL, KEYS_ONLY or INCLUDE projections); it is active at once.
func (db *DB) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	name := aws.ToString(in.TableName)
	t := &table{items: map[string]record{}, indexes: map[string]*index{}}
	t.hash, t.rng = keySchema(in.KeySchema)
	if t.hash == "" {
		return nil, validation("CreateTable of %q: no HASH key", name)
	}
	for _, g := range in.GlobalSecondaryIndexes {
		ix := &index{partitions: map[string]*ordered{}}
		ix.hash, ix.rng = keySchema(g.KeySchema)
		if ix.hash == "" {
			return nil, validation("CreateTable of %q: index %q has no HASH key", name, aws.ToString(g.IndexName))
		}
		if p := g.Projection; p != nil && p.ProjectionType != types.ProjectionTypeAll && p.ProjectionType != "" {
			ix.projected = append([]string{t.hash, t.rng, ix.hash, ix.rng}, p.NonKeyAttributes...)
		}
		t.indexes[aws.ToString(g.IndexName)] = ix
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.tables[name] != nil {
		return nil, &types.ResourceInUseException{Message: aws.String("Table already exists: " + name)}
	}
	db.tables[name] = t
	return &dynamodb.CreateTableOutput{TableDescription: &types.TableDescription{TableName: aws.String(name), TableStatus: types.TableStatusActive}}, nil
}

// keySchema returns the HASH and RANGE attributes of a key schema.
func keySchema(ks []types.KeySchemaElement) (hash, rng string) {
	for _, k := range ks {
		switch k.KeyType {
		case types.KeyTypeHash:
			hash = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			rng = aws.ToString(k.AttributeName)
		}
	}
	return hash, rng
}

// GetItem reads an item by its primary key.
func (db *DB) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, key, err := db.keyed(in.TableName, in.Key)
	if err != nil {
		return nil, err
	}
	item := t.items[key]
	db.billRead(len(item), aws.ToBool(in.ConsistentRead))
	if item == "" {
		return &dynamodb.GetItemOutput{}, nil
	}
	p := aws.ToString(in.ProjectionExpression)
	if p == "" {
		return &dynamodb.GetItemOutput{Item: item.read()}, nil
	}
	projected, err := project(p, in.ExpressionAttributeNames, item.interpreted())
	if err != nil {
		return nil, validation("%v", err)
	}
	return &dynamodb.GetItemOutput{Item: fromItem(projected)}, nil
}

// PutItem writes a whole item, if its condition holds on the item it
// replaces.
func (db *DB) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, err
	}
	item, err := db.encode(in.Item)
	if err != nil {
		return nil, validation("PutItem: %v", err)
	}
	key, err := t.key(item.keyOf)
	if err != nil {
		return nil, err
	}
	old := t.items[key]
	if err := db.check(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, old); err != nil {
		db.billWrite(old, "")
		return nil, err
	}
	db.store(t, key, old, item)
	out := &dynamodb.PutItemOutput{}
	if in.ReturnValues == types.ReturnValueAllOld {
		out.Attributes = old.read()
	}
	return out, nil
}

// UpdateItem applies an update expression to an item (made from its key if
// absent), if its condition holds.
func (db *DB) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, key, err := db.keyed(in.TableName, in.Key)
	if err != nil {
		return nil, err
	}
	old := t.items[key]
	if done, err := db.simpleUpdate(t, key, old, in); done {
		if err != nil {
			return nil, err
		}
		return &dynamodb.UpdateItemOutput{}, nil
	}
	updated := old.interpreted() // the condition reads it, then the update changes it
	// The values, which the condition and the update only read.
	values, verr := toItem(in.ExpressionAttributeValues)
	if verr != nil && aws.ToString(in.ConditionExpression) != "" {
		return nil, validation("%v", verr) // as check reports it
	}
	if err := checkOn(in.ConditionExpression, in.ExpressionAttributeNames, values, updated); err != nil {
		db.billWrite(old, "")
		return nil, err
	}
	if updated == nil {
		updated, _ = toItem(in.Key) // an absent item is made from its key, checked by keyed
	}
	if verr != nil {
		return nil, validation("UpdateItem: %v", verr)
	}
	if err := update(aws.ToString(in.UpdateExpression), in.ExpressionAttributeNames, values, updated); err != nil {
		return nil, validation("%v", err)
	}
	item := fromItem(updated)
	rec, _ := db.encode(item) // fromItem makes values of attribute types only
	newKey, err := t.key(rec.keyOf)
	if err != nil || newKey != key {
		return nil, validation("UpdateItem: an update expression cannot change the primary key")
	}
	db.store(t, newKey, old, rec) // newKey shares rec's memory, key may not
	return &dynamodb.UpdateItemOutput{Attributes: returned(in.ReturnValues, old, item)}, nil
}

// returned is what an UpdateItem returns for rv, from the item's record
// before (old) and the item after, which the table does not keep (it
// keeps its record), so that it can be returned as it is.
func returned(rv types.ReturnValue, old record, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	switch rv {
	case types.ReturnValueAllNew:
		return item
	case types.ReturnValueAllOld:
		return old.read()
	case types.ReturnValueUpdatedNew, types.ReturnValueUpdatedOld:
		before := old.decode(false) // as it was put, to compare
		from := item
		if rv == types.ReturnValueUpdatedOld {
			from = old.read()
		}
		out := map[string]types.AttributeValue{}
		for k, v := range from {
			if !sameValue(before[k], item[k]) {
				out[k] = v
			}
		}
		return out
	}
	return nil
}

// sameValue reports whether two SDK values are equal, type and value.
func sameValue(a, b types.AttributeValue) bool {
	return reflect.DeepEqual(a, b)
}

// DeleteItem removes an item, if its condition holds.
func (db *DB) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, key, err := db.keyed(in.TableName, in.Key)
	if err != nil {
		return nil, err
	}
	old := t.items[key]
	if err := db.check(in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues, old); err != nil {
		db.billWrite(old, "")
		return nil, err
	}
	out := &dynamodb.DeleteItemOutput{}
	if old == "" {
		db.billWrite("", "")
		return out, nil
	}
	db.store(t, key, old, "")
	if in.ReturnValues == types.ReturnValueAllOld {
		out.Attributes = old.read()
	}
	return out, nil
}

// partitionCondition reads the partition key's equality at the start of a
// KeyConditionExpression: "name = :value", the name maybe a #placeholder.
var partitionCondition = regexp.MustCompile(`^\s*\(?\s*(#?[A-Za-z0-9_.-]+)\s*=\s*(:[A-Za-z0-9_]+)`)

// Query lists the items of one partition of the table or of an index, in
// sort key order, that match the key condition and the filter.
func (db *DB) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, err := db.table(in.TableName)
	if err != nil {
		return nil, err
	}
	q, err := t.parseQuery(in)
	if err != nil {
		return nil, err
	}
	if q.partitionOnly && q.countOnly && q.filter == "" && q.limit == 0 && q.start == "" {
		// Counted without reading each item: billed as n items the size
		// of the first.
		n, first := q.part.n, 0
		q.part.each(true, func(e entry) bool { first = projectedSize(q.projected, t.items[e.pk]); return false })
		db.billRead(n*first, aws.ToBool(in.ConsistentRead))
		return &dynamodb.QueryOutput{Count: int32(n), ScannedCount: int32(n)}, nil
	}
	return db.run(t, q)
}

// query is a Query request read against one table.
type query struct {
	in        *dynamodb.QueryInput
	expr      string                  // the key condition
	filter    string                  // the filter, "" for none
	values    map[string]*mtypes.Item // the expression values
	part      *ordered                // the partition the key condition names
	indexKeys []string                // the index's key attributes, if on an index
	projected []string                // the attributes the index projects, nil for all
	start     string                  // the primary key to start after, "" from the first
	limit     int                     // how many items to evaluate, 0 for all
	countOnly bool                    // Select COUNT
	// partitionOnly is a key condition that is the partition's equality
	// alone: it holds for every item of the partition, so it need not be
	// evaluated on each.
	partitionOnly bool
}

// parseQuery reads in's key condition, values and paging against t.
func (t *table) parseQuery(in *dynamodb.QueryInput) (query, error) {
	q := query{in: in, expr: aws.ToString(in.KeyConditionExpression), filter: aws.ToString(in.FilterExpression),
		limit: int(aws.ToInt32(in.Limit)), countOnly: in.Select == types.SelectCount}
	m := partitionCondition.FindStringSubmatch(q.expr)
	if m == nil {
		return q, validation("Query: KeyConditionExpression %q does not start with the partition key's equality", q.expr)
	}
	name := m[1]
	if alias, ok := in.ExpressionAttributeNames[name]; ok {
		name = alias
	}
	value := in.ExpressionAttributeValues[m[2]]
	if _, err := toValue(value); err != nil { // missing, or of no attribute type
		return q, validation("Query: no value for %s", m[2])
	}
	var err error
	if q.values, err = toItem(in.ExpressionAttributeValues); err != nil {
		return q, validation("Query: %v", err)
	}
	if q.part, q.indexKeys, err = t.partition(aws.ToString(in.IndexName), name, value); err != nil {
		return q, err
	}
	if ix := t.indexes[aws.ToString(in.IndexName)]; ix != nil {
		q.projected = ix.projected
	}
	if in.ExclusiveStartKey != nil {
		if _, err := toItem(in.ExclusiveStartKey); err != nil { // a value of no attribute type
			return q, validation("Query: ExclusiveStartKey: %v", err)
		}
		if q.start, err = t.key(sdkItem(in.ExclusiveStartKey).keyOf); err != nil {
			return q, err
		}
	}
	q.partitionOnly = strings.TrimSpace(q.expr[len(m[0]):]) == "" && !strings.HasPrefix(strings.TrimSpace(q.expr), "(")
	return q, nil
}

// run evaluates q on its partition, in sort key order, from q.start.
func (db *DB) run(t *table, q query) (*dynamodb.QueryOutput, error) {
	out := &dynamodb.QueryOutput{}
	var last record
	evaluated, read := 0, 0
	start := q.start
	var qerr error
	q.part.each(q.in.ScanIndexForward == nil || *q.in.ScanIndexForward, func(e entry) bool {
		if start != "" {
			if e.pk == start {
				start = ""
			}
			return true
		}
		item := t.items[e.pk]
		inKey, kept, err := q.match(item)
		if err != nil || !inKey {
			qerr = err
			return err == nil
		}
		evaluated++
		read += projectedSize(q.projected, item)
		last = item
		if kept {
			out.Count++
			if !q.countOnly {
				if out.Items == nil && q.limit > 0 {
					out.Items = make([]map[string]types.AttributeValue, 0, min(q.limit, q.part.n)) // not to grow it
				}
				out.Items = append(out.Items, db.project(item, q))
			}
		}
		return q.limit == 0 || evaluated < q.limit
	})
	if qerr != nil {
		return nil, validation("%v", qerr)
	}
	db.billRead(read, aws.ToBool(q.in.ConsistentRead))
	out.ScannedCount = int32(evaluated)
	if q.limit > 0 && evaluated == q.limit && last != "" {
		out.LastEvaluatedKey = last.readAttrs(append([]string{t.hash, t.rng}, q.indexKeys...)...)
	}
	return out, nil
}

// match decides item against q: whether the key condition holds (an
// item outside it is not evaluated), and whether the filter keeps it.
func (q query) match(item record) (inKey, kept bool, err error) {
	var mitem map[string]*mtypes.Item
	if !q.partitionOnly || q.filter != "" {
		mitem = item.interpreted()
	}
	if !q.partitionOnly {
		if inKey, err = match(kindKey, q.expr, q.in.ExpressionAttributeNames, q.values, mitem); err != nil || !inKey {
			return false, false, err
		}
	}
	if q.filter == "" {
		return true, true, nil
	}
	kept, err = match(kindFilter, q.filter, q.in.ExpressionAttributeNames, q.values, mitem)
	return err == nil, kept, err
}

// project is an item as q returns it: what its index projects (the whole
// item on the table, or an index projecting ALL), or of that its
// ProjectionExpression's attributes.
func (db *DB) project(item record, q query) map[string]types.AttributeValue {
	p := aws.ToString(q.in.ProjectionExpression)
	switch {
	case p == "" && q.projected == nil:
		return item.read()
	case p == "":
		return item.readAttrs(q.projected...)
	}
	projected, err := project(p, q.in.ExpressionAttributeNames, item.interpreted())
	if err != nil {
		return nil
	}
	out := fromItem(projected)
	if q.projected != nil {
		for name := range out {
			if !slices.Contains(q.projected, name) {
				delete(out, name)
			}
		}
	}
	return out
}

// partition returns the ordered partition a Query reads, of the index
// named index ("" for the table) whose partition key attr has value v,
// and the index's key attributes.
func (t *table) partition(index, attr string, v types.AttributeValue) (*ordered, []string, error) {
	if index == "" {
		if attr != t.hash {
			return nil, nil, validation("Query: the key condition names %q, not the partition key %q", attr, t.hash)
		}
		if t.rng != "" {
			return nil, nil, validation("Query on a table with a sort key is not supported")
		}
		key, ok := keyString(v)
		part := &ordered{}
		if ok && t.items[key] != "" {
			part.insert(entry{pk: key})
		}
		return part, nil, nil
	}
	ix := t.indexes[index]
	if ix == nil {
		return nil, nil, validation("The table does not have the specified index: %s", index)
	}
	if attr != ix.hash {
		return nil, nil, validation("Query: the key condition names %q, not the index's partition key %q", attr, ix.hash)
	}
	pv, ok := keyString(v)
	part := ix.partitions[pv]
	if !ok || part == nil {
		part = &ordered{}
	}
	return part, []string{ix.hash, ix.rng}, nil
}

// check evaluates a write's condition, if it has one, on the item it
// would change ("": none); a condition that does not hold is a
// ConditionalCheckFailedException.
func (db *DB) check(cond *string, names map[string]string, values map[string]types.AttributeValue, item record) error {
	if aws.ToString(cond) == "" {
		return nil // without decoding the item or the values
	}
	if p := parse(kindCondition, *cond); p.simple(kindCondition, *cond, names) && plainNames(names, item) {
		if tv, ok := taggedValues(values); ok {
			if holds, decided := p.decide(names, tv, item); decided {
				return failedUnless(holds)
			}
		}
	}
	vs, err := toItem(values)
	if err != nil {
		return validation("%v", err)
	}
	return checkOn(cond, names, vs, item.interpreted())
}

// checkOn is check with the values and the item in the interpreter's
// form.
func checkOn(cond *string, names map[string]string, values, item map[string]*mtypes.Item) error {
	if aws.ToString(cond) == "" {
		return nil
	}
	ok, err := match(kindCondition, *cond, names, values, item)
	if err != nil {
		return validation("%v", err)
	}
	return failedUnless(ok)
}

// failedUnless is a failed condition's error, unless it holds.
func failedUnless(holds bool) error {
	if !holds {
		return &types.ConditionalCheckFailedException{Message: aws.String(conditionFailed)}
	}
	return nil
}

// simpleUpdate is UpdateItem, on the table t's item of key whose record is
// old, for a simple update and condition (see simple.go) that asks for no
// values back: it stores the record it makes, or fails with the
// condition. done is false when UpdateItem must take the interpreter's
// way, which then does the same and words any error. Call with db.mu
// held.
func (db *DB) simpleUpdate(t *table, key string, old record, in *dynamodb.UpdateItemInput) (done bool, err error) {
	names := in.ExpressionAttributeNames
	expr := aws.ToString(in.UpdateExpression)
	update := parse(kindUpdate, expr)
	if rv := in.ReturnValues; rv != "" && rv != types.ReturnValueNone || !update.simple(kindUpdate, expr, names) {
		return false, nil
	}
	base := old
	if base == "" { // an absent item is made from its key, checked by keyed
		if base, err = db.encode(in.Key); err != nil {
			return false, nil
		}
	}
	if !plainNames(names, base) {
		return false, nil
	}
	values, ok := taggedValues(in.ExpressionAttributeValues)
	if !ok {
		return false, nil
	}
	if cond := aws.ToString(in.ConditionExpression); cond != "" {
		p := parse(kindCondition, cond)
		if !p.simple(kindCondition, cond, names) {
			return false, nil
		}
		holds, decided := p.decide(names, values, old)
		if !decided {
			return false, nil
		}
		if !holds {
			db.billWrite(old, "")
			return true, failedUnless(false)
		}
	}
	rec, ok := db.set(update, names, values, base)
	if !ok {
		return false, nil
	}
	newKey, err := t.key(rec.keyOf)
	if err != nil || newKey != key {
		return false, nil // the interpreter's way refuses it
	}
	db.store(t, newKey, old, rec) // newKey shares rec's memory, key may not
	return true, nil
}

// table looks a table up. Call with db.mu held.
func (db *DB) table(name *string) (*table, error) {
	t := db.tables[aws.ToString(name)]
	if t == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found: " + aws.ToString(name))}
	}
	return t, nil
}

// keyed looks a table up and reads a Key of its schema. Call with db.mu
// held.
func (db *DB) keyed(name *string, key map[string]types.AttributeValue) (*table, string, error) {
	t, err := db.table(name)
	if err != nil {
		return nil, "", err
	}
	want := 1
	if t.rng != "" {
		want = 2
	}
	if len(key) != want {
		return nil, "", validation("The provided key element does not match the schema")
	}
	s, err := t.key(sdkItem(key).keyOf)
	if err != nil {
		// A value of no attribute type is a key of none of the schema's
		// types: report it as a write would.
		if _, cerr := toItem(key); cerr != nil {
			return nil, "", validation("%v", cerr)
		}
	}
	return t, s, err
}

// sdkItem is an item (or a key) in the SDK's form, as a caller passes it.
type sdkItem map[string]types.AttributeValue

// keyOf is the key string of the item's attribute name (see keyString).
func (m sdkItem) keyOf(name string) (string, bool) {
	return keyString(m[name])
}

// key is an item's primary key as a map key, from its key attributes' key
// strings, which keyOf reads (see record.keyOf and sdkItem.keyOf).
func (t *table) key(keyOf func(name string) (string, bool)) (string, error) {
	h, ok := keyOf(t.hash)
	if !ok {
		return "", validation("One or more parameter values were invalid: Missing the key %s in the item", t.hash)
	}
	if t.rng == "" {
		return h, nil
	}
	r, ok := keyOf(t.rng)
	if !ok {
		return "", validation("One or more parameter values were invalid: Missing the key %s in the item", t.rng)
	}
	return h + "\x00" + r, nil
}

// store replaces the item under key (old, "" if none) with item ("":
// delete it), and updates the indexes. The map and the indexes keep key,
// which should share item's memory (see valueKey).
func (db *DB) store(t *table, key string, old, item record) {
	db.billWrite(old, item)
	if item == old {
		return // an item put again as it was, its record kept
	}
	for _, ix := range t.indexes {
		db.writeUnits += ix.move(key, old, item)
	}
	if item == "" {
		delete(t.items, key)
		return
	}
	t.items[key] = item
}

// move updates the index for the item under key changing from old to item
// (either "" when absent); an item without the index's key attributes is
// not in it (a sparse index). It returns the write units DynamoDB bills
// the index for the change: an entry's put when the item enters it, its
// delete when it leaves, both when its index key changes, a put when an
// attribute it projects changes, none otherwise (see indexUnits).
func (ix *index) move(key string, old, item record) int64 {
	op, oe, wasIn := ix.place(key, old)
	np, ne, isIn := ix.place(key, item)
	if wasIn && isIn && op == np && oe == ne {
		ix.partitions[np].replace(ne) // for the index to keep the new record's memory, not the old
		if ix.projects(old, item) {
			return ix.indexUnits(item)
		}
		return 0
	}
	if wasIn {
		part := ix.partitions[op]
		part.remove(oe)
		if part.n == 0 {
			delete(ix.partitions, op)
		}
	}
	if isIn {
		part := ix.partitions[np]
		if part == nil {
			part = &ordered{}
			ix.partitions[strings.Clone(np)] = part // not to keep item's record alive
		}
		part.insert(ne)
	}
	var units int64
	if wasIn {
		units += ix.indexUnits(old)
	}
	if isIn {
		units += ix.indexUnits(item)
	}
	return units
}

// projects reports whether an item changing from old to item changes what
// the index holds of it.
func (ix *index) projects(old, item record) bool {
	if ix.projected == nil {
		return old != item
	}
	for _, name := range ix.projected {
		if name != "" && old.attr(name) != item.attr(name) {
			return true
		}
	}
	return false
}

// place is where an item stands in the index: its partition and entry,
// or false when it is not in it.
func (ix *index) place(key string, item record) (string, entry, bool) {
	if item == "" {
		return "", entry{}, false
	}
	p, ok := item.keyOf(ix.hash)
	if !ok {
		return "", entry{}, false
	}
	e := entry{pk: key}
	if ix.rng != "" {
		if e.sort, ok = sortKey(item.attr(ix.rng)); !ok {
			return "", entry{}, false
		}
	}
	return p, e, true
}

// validation is a ValidationException, as the SDK returns it.
func validation(format string, args ...any) error {
	return &smithy.GenericAPIError{Code: "ValidationException", Message: fmt.Sprintf(format, args...)}
}

// Items returns a copy of every item of a table, in no order: for tests
// and inspection.
func (db *DB) Items(name string) ([]map[string]types.AttributeValue, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	t, err := db.table(&name)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]types.AttributeValue, 0, len(t.items))
	for item := range maps.Values(t.items) {
		out = append(out, item.read())
	}
	return out, nil
}
