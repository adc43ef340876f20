package ddbmem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/interpreter"
	mtypes "github.com/truora/minidyn/types"
)

// n is a number value.
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// exprItem is an item of every kind of attribute the expressions of
// TestParsedLikeInterpreter read, in the interpreter's form, made anew on
// each call as an update changes it.
func exprItem(t *testing.T) map[string]*mtypes.Item {
	t.Helper()
	item, err := toItem(map[string]types.AttributeValue{
		"pk":    s("k"),
		"a":     s("apple"),
		"b":     s("banana"),
		"ttl":   n("10"),
		"token": s("tok"),
		"ss":    &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"l":     &types.AttributeValueMemberL{Value: []types.AttributeValue{s("first"), n("2")}},
		"m":     &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("inner")}},
		"yes":   &types.AttributeValueMemberBOOL{Value: true},
	})
	require.NoError(t, err)
	return item
}

// exprValues are the values the expressions of TestParsedLikeInterpreter
// use.
func exprValues(t *testing.T) map[string]*mtypes.Item {
	t.Helper()
	values, err := toItem(map[string]types.AttributeValue{
		":v": s("apple"), ":w": s("banana"), ":one": n("1"), ":p": s("app"),
		":lo": s("a"), ":hi": s("b"), ":token": s("tok"), ":x": s("x"),
		":sub": &types.AttributeValueMemberSS{Value: []string{"x"}},
		":l":   &types.AttributeValueMemberL{Value: []types.AttributeValue{s("last")}},
	})
	require.NoError(t, err)
	return values
}

// aliasSets are the ExpressionAttributeNames each expression of
// TestParsedLikeInterpreter is evaluated with: one expression string
// names different attributes, or names undeclared, with each.
var aliasSets = []map[string]string{
	{"#a": "a", "#b": "b", "#ttl": "ttl", "#token": "token", "#ss": "ss", "#l": "l", "#m": "m", "#k": "k", "#pk": "pk", "#y": "yes"},
	{"#a": "b", "#b": "a", "#ttl": "token", "#token": "ttl", "#ss": "l", "#l": "ss", "#m": "m", "#k": "k", "#pk": "a", "#y": "yes"},
	{"#a": "a", "#ttl": "ttl"},
	nil,
	// Names the interpreter reads otherwise than DynamoDB: a nested path
	// in an alias, an alias to a placeholder.
	{"#a": "m.k", "#b": "a", "#ttl": ":one", "#token": "#a", "#ss": "ss", "#l": "l", "#m": "m", "#k": "k", "#pk": "pk", "#y": "yes"},
}

// The expressions TestParsedLikeInterpreter and TestSimpleWritesLikeInterpreter
// evaluate: valid, failing to parse, failing to evaluate, naming undeclared
// attributes.
var exprConditions = []string{
	"#token = :token", "attribute_exists(#ttl)", "attribute_not_exists(#ttl)", "#a = :v AND #b <> :w",
	"#a = :v OR #b = :v", "NOT (#a = :v)", "size(#l) > :one", "#m.#k = :v", "#l[0] = :v",
	"begins_with(#a, :p)", "#a BETWEEN :lo AND :hi", "#a IN (:v, :w)", "contains(#ss, :x)",
	"attribute_type(#a, :v)", "#ttl > :one", "#a < :one", "#y = :v", "pk = :v", "#a = :missing",
	"#a = :v AND #undeclared = :w", "#undeclared = :v AND #other = :w",
	"", "#a", "#a =", "#a = :v AND", "#a == :v", ")(", "size = :v", "nofunc(#a)", "#a = :v :w",
	"#l[#a] = :v", "(#a = :v", "NOT #a",
	"#a = :v AND attribute_exists(#b)", "attribute_not_exists(#zz) AND #token = :token", "#ttl = :one", "#ttl = :v",
	"#zz = :v", "#a = :v AND #b = :v", "attribute_exists(#a) AND attribute_not_exists(#a)", "attribute_exists(#a.#b)",
}
var exprUpdates = []string{
	"SET #ttl = #ttl + :one", "SET #a = :v, #b = :w REMOVE #ss", "ADD #ttl :one", "DELETE #ss :sub",
	"SET #l = list_append(#l, :l)", "SET #a = if_not_exists(#zz, :w)", "REMOVE #l[0]", "SET #m.#k = :w",
	"SET #l[1] = :v", "SET newattr = :v", "SET #a = :v SET #b = :w", "SET", "SET #a", "SET #a = ",
	"UPDATE #a", "SET #a = #a + :one", "ADD #a :one", "SET #undeclared = :v", "REMOVE #a, #b",
	"SET #m.#k.#a = :v", "SET size = :v", "", "SET #a = :missing",
	"SET #a = :v, #b = :w", "SET #ttl = :one", "SET #m = :l", "SET #a = :sub", "SET #a = :v, #a = :w", "SET #zz = :one",
}
var exprProjections = []string{
	"#a, #b", "#m.#k", "#l[0]", "pk, #token", "#a,", ",", "#a #b", "#undeclared", "missing, #m",
	"#l[1]", "#a.#b", "size", // (#l[5] panics in the interpreter)
}

// TestParsedLikeInterpreter evaluates conditions, key conditions,
// filters, updates and projections (valid, failing to parse, failing to
// evaluate, naming undeclared attributes) with each set of aliases, twice
// (parsed, then from the cache), and expects what minidyn's
// interpreter.Language, which parses on every call, returns.
func TestParsedLikeInterpreter(t *testing.T) {
	var lang interpreter.Language
	for i, aliases := range aliasSets {
		for _, kind := range []exprKind{kindCondition, kindKey, kindFilter} {
			typ := map[exprKind]interpreter.ExpressionType{kindCondition: interpreter.ExpressionTypeConditional,
				kindKey: interpreter.ExpressionTypeKey, kindFilter: interpreter.ExpressionTypeFilter}[kind]
			for _, expr := range append(exprConditions, exprUpdates[0]) {
				want, wantErr := lang.Match(interpreter.MatchInput{Expression: expr, ExpressionType: typ,
					Item: exprItem(t), Attributes: exprValues(t), Aliases: aliases})
				for range 2 {
					got, err := match(kind, expr, aliases, exprValues(t), exprItem(t))
					name := fmt.Sprintf("%s %q, aliases %d", kind.label(), expr, i)
					sameError(t, wantErr, err, name)
					assert.Equal(t, want, got, name)
				}
			}
		}
		for _, expr := range append(exprUpdates, exprConditions[0]) {
			want := exprItem(t)
			wantErr := lang.Update(interpreter.UpdateInput{Expression: expr, Item: want, Attributes: exprValues(t), Aliases: aliases})
			for range 2 {
				got := exprItem(t)
				err := update(expr, aliases, exprValues(t), got)
				name := fmt.Sprintf("UpdateExpression %q, aliases %d", expr, i)
				sameError(t, wantErr, err, name)
				assert.Equal(t, sdkForm(want), sdkForm(got), name)
			}
		}
		for _, expr := range append(exprProjections, exprConditions[0]) {
			want, wantErr := lang.Project(interpreter.ProjectInput{Expression: expr, Item: exprItem(t), Aliases: aliases})
			for range 2 {
				got, err := project(expr, aliases, exprItem(t))
				name := fmt.Sprintf("ProjectionExpression %q, aliases %d", expr, i)
				sameError(t, wantErr, err, name)
				assert.Equal(t, sdkForm(want), sdkForm(got), name)
			}
		}
	}

	// An item the interpreter cannot read (a binary value without bytes)
	// fails alike.
	empty := map[string]*mtypes.Item{"pk": {}}
	_, wantErr := lang.Match(interpreter.MatchInput{Expression: "pk = :v", ExpressionType: interpreter.ExpressionTypeConditional, Item: empty})
	_, err := match(kindCondition, "pk = :v", nil, nil, empty)
	sameError(t, wantErr, err, "unreadable item")
	require.ErrorIs(t, err, interpreter.ErrUnsupportedFeature)
	sameError(t, lang.Update(interpreter.UpdateInput{Expression: "SET a = pk", Item: empty}), update("SET a = pk", nil, nil, empty), "update of an unreadable item")
	_, wantErr = lang.Project(interpreter.ProjectInput{Expression: "pk", Item: empty})
	_, err = project("pk", nil, empty)
	sameError(t, wantErr, err, "projection of an unreadable item")

	parses.RLock()
	defer parses.RUnlock()
	assert.NotNil(t, parses.m[exprKey{kindKey, exprConditions[0]}], "a key condition is cached")
	assert.NotNil(t, parses.m[exprKey{kindUpdate, exprUpdates[0]}], "an update is cached")
	assert.NotNil(t, parses.m[exprKey{kindProjection, "#a,"}], "a projection's parse error is cached")
}

// sdkForm is an item in the SDK's form, its sets sorted: the interpreter
// keeps sets in maps, and lists them in no order.
func sdkForm(item map[string]*mtypes.Item) map[string]types.AttributeValue {
	out := fromItem(item)
	for _, v := range out {
		switch v := v.(type) {
		case *types.AttributeValueMemberSS:
			slices.Sort(v.Value)
		case *types.AttributeValueMemberNS:
			slices.Sort(v.Value)
		}
	}
	return out
}

// sameError expects got to be want: both nil, or of one type and message,
// wrapping the same of the interpreter's errors.
func sameError(t *testing.T, want, got error, name string) {
	t.Helper()
	if want == nil || got == nil {
		assert.Equal(t, want, got, name)
		return
	}
	assert.Equal(t, want.Error(), got.Error(), name)
	assert.Equal(t, fmt.Sprintf("%T", want), fmt.Sprintf("%T", got), name)
	for _, sentinel := range []error{interpreter.ErrSyntaxError, interpreter.ErrUnsupportedFeature} {
		assert.Equal(t, errors.Is(want, sentinel), errors.Is(got, sentinel), "%s: wraps %v", name, sentinel)
	}
}

// TestParsedConcurrently evaluates one condition, update and projection,
// parsed once, from many goroutines at once, their first parse included,
// with aliases and items of their own: under the race detector, it
// checks that evaluating leaves the shared parse alone.
func TestParsedConcurrently(t *testing.T) {
	const (
		goroutines = 16
		rounds     = 200
		cond       = "#hammer = :v AND attribute_exists(#other)"
		upd        = "SET #hammer = :v, #count = #count + :one"
		proj       = "#hammer, #other"
	)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for r := range rounds {
				v := strconv.Itoa(g*rounds + r)
				aliases := map[string]string{"#hammer": "h" + v, "#other": "o" + v, "#count": "count"}
				item, err := toItem(map[string]types.AttributeValue{"h" + v: s(v), "o" + v: s("x"), "count": n("1")})
				assert.NoError(t, err)
				values, err := toItem(map[string]types.AttributeValue{":v": s(v), ":one": n("1")})
				assert.NoError(t, err)

				ok, err := match(kindCondition, cond, aliases, values, item)
				assert.NoError(t, err)
				assert.True(t, ok)
				_, err = match(kindCondition, cond, map[string]string{"#hammer": "h"}, values, item)
				assert.EqualError(t, err, "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #other")

				got, err := project(proj, aliases, item)
				assert.NoError(t, err)
				assert.Equal(t, map[string]types.AttributeValue{"h" + v: s(v), "o" + v: s("x")}, fromItem(got))

				assert.NoError(t, update(upd, aliases, values, item))
				assert.Equal(t, map[string]types.AttributeValue{"h" + v: s(v), "o" + v: s("x"), "count": n("2")}, fromItem(item))
			}
		})
	}
	close(start)
	wg.Wait()
}

// TestParsesBounded expects the cache to stop growing at maxParsed
// expressions, those past it still evaluated.
func TestParsesBounded(t *testing.T) {
	parses.Lock()
	saved := parses.m
	parses.m = map[exprKey]*parsed{}
	parses.Unlock()
	t.Cleanup(func() {
		parses.Lock()
		parses.m = saved
		parses.Unlock()
	})
	item := exprItem(t)
	for i := range maxParsed + 10 {
		ok, err := match(kindFilter, "#ttl = :n"+strconv.Itoa(i), map[string]string{"#ttl": "ttl"}, nil, item)
		require.NoError(t, err)
		require.False(t, ok)
	}
	ok, err := match(kindFilter, "#ttl = :one", map[string]string{"#ttl": "ttl"}, exprValues(t), item)
	require.NoError(t, err)
	require.False(t, ok)
	parses.RLock()
	defer parses.RUnlock()
	require.Len(t, parses.m, maxParsed)
}

// TestSimpleExpressions: the simple forms are decided and written on the
// records themselves (TestSimpleWritesLikeInterpreter checks they agree
// with the interpreter); the others, and whatever the interpreter would
// read otherwise than DynamoDB, are left to it.
func TestSimpleExpressions(t *testing.T) {
	db := New()
	item, err := db.encode(sdkForm(exprItem(t)))
	require.NoError(t, err)
	sdkValues := sdkForm(exprValues(t))
	delete(sdkValues, ":sub") // a set: see below
	values, ok := taggedValues(sdkValues)
	require.True(t, ok)
	aliases := map[string]string{"#a": "a", "#b": "b", "#ttl": "ttl", "#zz": "zz"}
	// decide and set as UpdateItem takes them: for a simple expression on
	// a record whose names are plain.
	decide := func(expr string, aliases map[string]string, r record) (holds, decided bool) {
		p := parse(kindCondition, expr)
		if !p.simple(kindCondition, expr, aliases) || !plainNames(aliases, r) {
			return false, false
		}
		return p.decide(aliases, values, r)
	}
	set := func(expr string, aliases map[string]string, r record) (record, bool) {
		p := parse(kindUpdate, expr)
		if !p.simple(kindUpdate, expr, aliases) || !plainNames(aliases, r) {
			return "", false
		}
		return db.set(p, aliases, values, r)
	}
	for expr, want := range map[string]struct{ holds, decided bool }{
		"#a = :v":                               {true, true},
		"#a = :w AND attribute_exists(#b)":      {false, true},
		"attribute_not_exists(#zz) AND #a = :v": {true, true},
		"#ttl = :one":                           {false, false}, // 10 and 1, as numbers: the interpreter's
		"#zz = :v":                              {false, false}, // a missing attribute
		"#a = :v OR #b = :w":                    {false, false},
		"#a <> :v":                              {false, false},
		"#undeclared = :v":                      {false, false},
	} {
		holds, decided := decide(expr, aliases, item)
		assert.Equal(t, want, struct{ holds, decided bool }{holds, decided}, expr)
	}
	for expr, want := range map[string]bool{
		"SET #a = :v, #b = :one": true, "SET #a = :l": true,
		"SET #a = :missing": false, "SET #a = :v REMOVE #b": false, "SET a = :v": false,
		"ADD #ttl :one": false, "SET #undeclared = :v": false,
	} {
		_, ok := set(expr, aliases, item)
		assert.Equal(t, want, ok, expr)
	}

	// The last set of an attribute wins, and the record holds it once.
	rec, ok := set("SET #a = :v, #a = :w", aliases, item)
	require.True(t, ok)
	assert.Equal(t, values[":w"], rec.attr("a"))
	attrs, _, _ := count(string(rec), true)
	assert.Equal(t, len(sdkForm(exprItem(t))), attrs)

	// Values the interpreter reads otherwise, or not at all, take its
	// way, whether used or not.
	for name, v := range map[string]types.AttributeValue{
		"a set": &types.AttributeValueMemberSS{Value: []string{"x", "x"}}, "NaN": n("NaN"), "a number out of range": n("1e400"),
		"not a number": n("abc"), "empty bytes": &types.AttributeValueMemberB{}, "a false NULL": &types.AttributeValueMemberNULL{},
		"an empty list": &types.AttributeValueMemberL{}, "a list holding a set": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNS{Value: []string{"1"}}}},
	} {
		_, ok := taggedValues(map[string]types.AttributeValue{":v": s("apple"), ":other": v})
		assert.False(t, ok, name)
	}
	_, ok = taggedValues(map[string]types.AttributeValue{":v": s("apple"), "x": s("a value the interpreter reads as an attribute")})
	assert.False(t, ok, "a value that is not a :placeholder")
	// So do names the interpreter reads otherwise: an alias to a nested
	// path or to a placeholder, an attribute named like a placeholder.
	for name, c := range map[string]struct {
		aliases map[string]string
		item    map[string]types.AttributeValue
	}{
		"an alias to a nested path":                     {map[string]string{"#a": "m.k"}, nil},
		"an alias to a value's placeholder":             {map[string]string{"#a": ":v"}, nil},
		"an attribute named like a placeholder":         {aliases, map[string]types.AttributeValue{"#a": s("apple")}},
		"an attribute the interpreter cannot read":      {aliases, map[string]types.AttributeValue{"a": &types.AttributeValueMemberNULL{}}},
		"an attribute named like a value's placeholder": {aliases, map[string]types.AttributeValue{"a": s("apple"), ":v": s("x")}},
		"an attribute named like a function":            {aliases, map[string]types.AttributeValue{"a": s("apple"), "attribute_exists": s("x")}},
		"a name that is not a #placeholder":             {map[string]string{"#a": "a", "x": "q"}, nil},
	} {
		r := item
		if c.item != nil {
			c.item["pk"] = s("k")
			r, err = db.encode(c.item)
			require.NoError(t, err)
		}
		_, decided := decide("#a = :v", c.aliases, r)
		assert.False(t, decided, name)
		_, ok := set("SET #a = :v", c.aliases, r)
		assert.False(t, ok, name)
	}
}

// TestSimpleWritesLikeInterpreter runs every update of
// TestParsedLikeInterpreter, under each of its conditions and none, with
// each set of aliases, through the simple path (see simple.go) where it
// takes the request and UpdateItem's other way where it does not, and
// expects what minidyn's interpreter makes of the same item: the
// condition failing, the request refused, or the item it leaves.
func TestSimpleWritesLikeInterpreter(t *testing.T) {
	ctx := context.Background()
	db := New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("t"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"pk": s("k")}
	outcome := func(err error) string {
		if _, failed := errors.AsType[*types.ConditionalCheckFailedException](err); failed {
			return "condition failed"
		}
		if err != nil {
			return "refused"
		}
		return "written"
	}
	// Without the set, which the simple path leaves to the interpreter.
	values := exprValues(t)
	delete(values, ":sub")
	var lang interpreter.Language
	simple := 0
	for i, aliases := range aliasSets {
		for _, cond := range append(exprConditions[:len(exprConditions):len(exprConditions)], "") {
			for _, expr := range append(exprUpdates[:len(exprUpdates):len(exprUpdates)], "SET #pk = :v", "SET #b = :w", "SET #y = :v, #ttl = :one",
				"SET #l = :l", "SET #m = :v, #token = :token", "SET #zz = :x, #a = :p",
				"SET #a = :w", "SET #ttl = :one", "SET #token = :x", "SET #b = :v, #a = :w") {
				name := fmt.Sprintf("UPDATE %q IF %q, aliases %d", expr, cond, i)
				want := exprItem(t)
				var wantErr error
				if cond != "" {
					holds, err := lang.Match(interpreter.MatchInput{Expression: cond, ExpressionType: interpreter.ExpressionTypeConditional,
						Item: want, Attributes: values, Aliases: aliases})
					switch {
					case err != nil:
						wantErr = err
					case !holds:
						wantErr = &types.ConditionalCheckFailedException{}
					}
				}
				if wantErr == nil {
					wantErr = lang.Update(interpreter.UpdateInput{Expression: expr, Item: want, Attributes: values, Aliases: aliases})
				}
				if wantErr == nil && *want["pk"].S != "k" {
					wantErr = errors.New("the key changed")
				}

				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: sdkForm(exprItem(t))})
				require.NoError(t, err)
				in := &dynamodb.UpdateItemInput{TableName: aws.String("t"), Key: key, UpdateExpression: aws.String(expr),
					ExpressionAttributeNames: aliases, ExpressionAttributeValues: sdkForm(values)}
				if cond != "" {
					in.ConditionExpression = aws.String(cond)
				}
				table, k, err := db.keyed(in.TableName, in.Key)
				require.NoError(t, err)
				done, err := db.simpleUpdate(table, k, table.items[k], in)
				if done {
					simple++
				} else {
					_, err = db.UpdateItem(ctx, in)
				}
				require.Equal(t, outcome(wantErr), outcome(err), "%s: interpreter %v, table %v", name, wantErr, err)
				got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key})
				require.NoError(t, err)
				if wantErr != nil {
					want = exprItem(t) // unchanged
				}
				assert.Equal(t, sdkForm(want), sortedSets(got.Item), name)
			}
		}
	}
	assert.Greater(t, simple, 200, "requests the simple path took")
}

// sortedSets is an item read from the table with its sets sorted, as
// sdkForm's.
func sortedSets(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	mitem, err := toItem(item)
	if err != nil {
		panic(err)
	}
	return sdkForm(mitem)
}
