package lotindex_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"iter"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/park/lotindex"
)

// t0 is the first parked time of the tests: late in a UTC day, so that the
// tests' entries span days.
var t0 = time.Date(2026, 3, 9, 22, 30, 0, 0, time.UTC)

// retention is the tests' parking-lot retention.
const retention = lotindex.MaxRetention

// env is an index on a fresh table of the test backend, with the raw
// client to read and write items behind its back.
type env struct {
	index  *lotindex.Index
	client *dynamodb.Client
	table  string
}

func newEnv(t *testing.T) env {
	t.Helper()
	client, backend := ddbtest.Client(t)
	table := ddbtest.CreateTable(t, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	t.Logf("backend %s, table %s", backend, table)
	return env{index: lotindex.New(client, table), client: client, table: table}
}

// entry is parking-lot message id's entry, parked at t0 plus after.
func entry(id, breaker, reason, errorType string, after time.Duration) lotindex.Entry {
	at := t0.Add(after)
	return lotindex.Entry{
		Breaker: breaker, Reason: reason, ErrorType: errorType, OriginID: "origin-" + id, Attempt: 1,
		ParkedAt: at, MessageID: id, Size: len(id) * 10, Expires: at.Add(retention),
	}
}

// put records every entry.
func (e env) put(t *testing.T, entries ...lotindex.Entry) {
	t.Helper()
	for _, en := range entries {
		require.NoError(t, e.index.Put(t.Context(), en))
	}
}

// list is every entry f selects, in order.
func (e env) list(t *testing.T, f lotindex.Filter) []lotindex.Entry {
	t.Helper()
	var out []lotindex.Entry
	for en, err := range e.index.Entries(t.Context(), f) {
		require.NoError(t, err)
		out = append(out, en)
	}
	return out
}

// ids is the parking-lot message ids of entries, in order.
func ids(entries []lotindex.Entry) []string {
	var out []string
	for _, en := range entries {
		out = append(out, en.MessageID)
	}
	return out
}

// window is a filter over the three days around t0, as of t0.
func window() lotindex.Filter {
	return lotindex.Filter{Since: t0.Add(-24 * time.Hour), Until: t0.Add(48 * time.Hour), Now: t0}
}

// item reads the item of partition key pk; it must be there.
func (e env) item(t *testing.T, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := e.client.GetItem(t.Context(), &dynamodb.GetItemInput{
		TableName: aws.String(e.table), Key: map[string]types.AttributeValue{"pk": s(pk)}, ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	require.NotEmpty(t, out.Item, "item %s", pk)
	return out.Item
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestItemLayout(t *testing.T) {
	e := newEnv(t)
	en := lotindex.Entry{
		Breaker: "orders", Reason: "poison", ErrorType: "PoisonMessage", Group: "account-7", OriginID: "5d41402a", Attempt: 2, Tag: "m0123abcd",
		ParkedAt: time.Date(2026, 3, 9, 23, 59, 59, 5, time.FixedZone("CET", 3600)), MessageID: "m-1", Size: 18,
		Expires: time.Date(2026, 3, 23, 23, 0, 0, 0, time.UTC),
	}
	e.put(t, en)

	out := e.item(t, "parked#2#m0123abcd#5d41402a")
	assert.Equal(t, map[string]types.AttributeValue{
		"pk":            s("parked#2#m0123abcd#5d41402a"),
		"parked_day":    s("2026-03-09"),
		"parked_seq":    s("2026-03-09T22:59:59.000000005Z#5d41402a"),
		"breaker":       s("orders"),
		"reason_class":  s("poison"),
		"error_type":    s("PoisonMessage"),
		"message_group": s("account-7"),
		"origin_id":     s("5d41402a"),
		"attempt":       n("2"),
		"message_tag":   s("m0123abcd"),
		"parked_at":     s("2026-03-09T22:59:59.000000005Z"),
		"message_id":    s("m-1"),
		"body_size":     n("18"),
		"ttl":           n("1774306800"),
	}, out, "keyed by the message (attempt, tag, origin id), not its copy; the day and the times in UTC, the sort key fixed-width")

	got := e.list(t, window())
	require.Len(t, got, 1)
	want := en
	want.ParkedAt, want.Expires = en.ParkedAt.UTC(), en.Expires.UTC()
	assert.Equal(t, want, got[0], "reads back as written")
}

func TestEmptyAttributesAreLeftOut(t *testing.T) {
	e := newEnv(t)
	e.put(t, lotindex.Entry{Reason: "invalid document", Attempt: 1, ParkedAt: t0, MessageID: "m-2", Expires: t0.Add(retention)})
	out := e.item(t, "parked#1##")
	for _, name := range []string{"breaker", "error_type", "origin_id", "message_tag"} {
		assert.NotContains(t, out, name)
	}
	assert.Equal(t, s("2026-03-09T22:30:00.000000000Z#"), out["parked_seq"])
}

// An origin id past 1 KiB (a lineage out of bounds is parked with it) is
// kept whole, cut in the sort key to DynamoDB's 1,024 bytes and hashed in
// the partition key.
func TestALongOriginIDIsCutInTheSortKeyOnly(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 1000) // 2,000 bytes; cut on a rune boundary
	en := entry("m-3", "orders", "poison", "", 0)
	en.OriginID = long
	e.put(t, en)
	sum := sha256.Sum256([]byte(long))
	out := e.item(t, "parked#1##sha256:"+hex.EncodeToString(sum[:]))
	sortKey := out["parked_seq"].(*types.AttributeValueMemberS).Value
	assert.LessOrEqual(t, len(sortKey), 1024)
	assert.Greater(t, len(sortKey), 1020)
	assert.True(t, strings.HasPrefix(long, strings.SplitN(sortKey, "#", 2)[1]))
	assert.Equal(t, s(long), out["origin_id"])
	got := e.list(t, window())
	require.Len(t, got, 1)
	assert.Equal(t, long, got[0].OriginID)
}

func TestPutRefusesAnEntryItCannotKey(t *testing.T) {
	e := newEnv(t)
	assert.ErrorContains(t, e.index.Put(t.Context(), lotindex.Entry{ParkedAt: t0}), "empty parking-lot message id")
	assert.ErrorContains(t, e.index.Put(t.Context(), lotindex.Entry{MessageID: "m-4"}), "m-4: no parked time")
	assert.Empty(t, e.list(t, window()))
}

func TestReasonClass(t *testing.T) {
	// The reasons the tasks park with (starter, attempt, park).
	tests := map[string]string{
		"poison: PoisonMessage: bad order":                                                        "poison",
		"poison: lineage: originId of 1025 bytes, want at most 1024":                              "poison",
		"exhausted: 4 attempts, last error Rejected: no":                                          "exhausted",
		"table unavailable: the table has failed this message's Attempts since 2026-01-01T00:00Z": "table unavailable",
		"unknown outcome: the Attempt died mid-call":                                              "unknown outcome",
		"oversize: 262145 bytes exceeds the 256000-byte limit":                                    "oversize",
		"invalid document: no message body":                                                       "invalid document",
		"task failed: States.Timeout":                                                             "task failed",
		`no park reason given (next "MAYBE")`:                                                     `no park reason given (next "MAYBE")`,
		"":                                                                                        "",
	}
	for reason, want := range tests {
		assert.Equal(t, want, lotindex.ReasonClass(reason), reason)
	}
}

func TestEntriesAreListedOldestFirstAcrossDays(t *testing.T) {
	e := newEnv(t)
	// Put out of order: day 1 (t0 is 22:30), day 2, day 3.
	e.put(t,
		entry("c", "orders", "poison", "", 26*time.Hour),
		entry("a", "orders", "poison", "", 0),
		entry("d", "orders", "poison", "", 47*time.Hour),
		entry("b", "orders", "poison", "", time.Hour),
		entry("b2", "orders", "poison", "", time.Hour), // the same time: ordered by origin id
	)
	assert.Equal(t, []string{"a", "b", "b2", "c", "d"}, ids(e.list(t, window())))

	tests := []struct {
		name         string
		since, until time.Duration // from t0
		want         []string
	}{
		{"since is inclusive, until exclusive", 0, 26 * time.Hour, []string{"a", "b", "b2"}},
		{"within one day", time.Minute, 2 * time.Hour, []string{"b", "b2"}},
		{"up to an entry's own time", -time.Hour, time.Hour, []string{"a"}},
		{"from the second day on", 2 * time.Hour, 72 * time.Hour, []string{"c", "d"}},
		{"nothing in the window", 3 * time.Hour, 4 * time.Hour, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ids(e.list(t, lotindex.Filter{Since: t0.Add(tt.since), Until: t0.Add(tt.until), Now: t0})))
		})
	}
}

func TestEntriesFilter(t *testing.T) {
	e := newEnv(t)
	e.put(t,
		entry("p1", "orders", "poison", "PoisonMessage", 0),
		entry("p2", "payments", "poison", "PoisonMessage", time.Minute),
		entry("x1", "orders", "exhausted", "Rejected", 2*time.Minute),
		entry("v1", "orders", "poison", "", 3*time.Minute),
		entry("i1", "", "invalid document", "", 4*time.Minute),
	)
	tests := []struct {
		name   string
		filter func(f *lotindex.Filter)
		want   []string
	}{
		{"everything", func(*lotindex.Filter) {}, []string{"p1", "p2", "x1", "v1", "i1"}},
		{"a breaker", func(f *lotindex.Filter) { f.Breaker = "orders" }, []string{"p1", "x1", "v1"}},
		{"a reason class", func(f *lotindex.Filter) { f.Reason = "poison" }, []string{"p1", "p2", "v1"}},
		{"an error type", func(f *lotindex.Filter) { f.ErrorType = "Rejected" }, []string{"x1"}},
		{"all three", func(f *lotindex.Filter) { f.Breaker, f.Reason, f.ErrorType = "orders", "poison", "PoisonMessage" }, []string{"p1"}},
		{"no error type", func(f *lotindex.Filter) { f.ErrorType = lotindex.None }, []string{"v1", "i1"}},
		{"no breaker", func(f *lotindex.Filter) { f.Breaker = lotindex.None }, []string{"i1"}},
		{"no match", func(f *lotindex.Filter) { f.Breaker = "nobody" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := window()
			tt.filter(&f)
			assert.Equal(t, tt.want, ids(e.list(t, f)))
		})
	}
}

// An entry whose message the lot has dropped is not listed, though the
// table's TTL may not have deleted it yet.
func TestExpiredEntriesAreLeftOut(t *testing.T) {
	e := newEnv(t)
	short := entry("gone", "orders", "poison", "", 0)
	short.Expires = t0.Add(time.Hour)
	e.put(t, short, entry("kept", "orders", "poison", "", time.Minute))
	f := window()
	assert.Equal(t, []string{"gone", "kept"}, ids(e.list(t, f)))
	f.Now = t0.Add(time.Hour)
	assert.Equal(t, []string{"kept"}, ids(e.list(t, f)))
}

// pageOfOne makes every Query return at most one item, so the tests walk
// the pages a large partition comes in.
type pageOfOne struct {
	*dynamodb.Client
	queries int
}

func (p *pageOfOne) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	p.queries++
	in.Limit = aws.Int32(1)
	return p.Client.Query(ctx, in, optFns...)
}

func TestEntriesReadEveryPage(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := range 5 {
		id := string(rune('a' + i))
		e.put(t, entry(id, "orders", "poison", "", time.Duration(i)*time.Second))
		want = append(want, id)
	}
	e.put(t, entry("z", "payments", "poison", "", 10*time.Second))
	paged := &pageOfOne{Client: e.client}
	idx := lotindex.New(paged, e.table)
	f := window()
	f.Breaker = "orders"
	var got []string
	for en, err := range idx.Entries(t.Context(), f) {
		require.NoError(t, err)
		got = append(got, en.MessageID)
	}
	assert.Equal(t, want, got)
	assert.GreaterOrEqual(t, paged.queries, 6, "a page per item, the filtered one too")
}

func TestEntriesStopWhenAskedTo(t *testing.T) {
	e := newEnv(t)
	e.put(t, entry("a", "orders", "poison", "", 0), entry("b", "orders", "poison", "", 25*time.Hour))
	paged := &pageOfOne{Client: e.client}
	queries := 0
	for en, err := range lotindex.New(paged, e.table).Entries(t.Context(), window()) {
		require.NoError(t, err)
		assert.Equal(t, "a", en.MessageID)
		queries = paged.queries
		break
	}
	assert.Positive(t, queries)
	assert.Equal(t, queries, paged.queries, "no query after the caller stopped")
}

// failingQuery fails every Query.
type failingQuery struct{ *dynamodb.Client }

func (failingQuery) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, errors.New("table unreachable")
}

func TestEntriesYieldTheFirstError(t *testing.T) {
	e := newEnv(t)
	t.Run("a query that fails", func(t *testing.T) {
		var errs []error
		for _, err := range lotindex.New(failingQuery{e.client}, e.table).Entries(t.Context(), window()) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorContains(t, errs[0], "lotindex: query 2026-03-08: table unreachable")
	})
	t.Run("a malformed item", func(t *testing.T) {
		_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: map[string]types.AttributeValue{
			"pk": s("parked#bad"), "parked_day": s("2026-03-09"), "parked_seq": s("2026-03-09T23:00:00.000000000Z#o"),
			"ttl": n("1893456000"), "parked_at": s("yesterday"), "attempt": s("one"),
		}})
		require.NoError(t, err)
		var errs []error
		for _, err := range e.index.Entries(t.Context(), window()) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		for _, part := range []string{`malformed item "parked#bad"`, `attribute "attempt": want a number (N), got S`, `attribute "body_size": missing`, `attribute "message_id": missing`, `attribute "parked_at": want an RFC 3339 time, got "yesterday"`} {
			assert.ErrorContains(t, errs[0], part)
		}
	})
}

func TestEntriesRefuseABadWindow(t *testing.T) {
	tests := []struct {
		name string
		f    lotindex.Filter
		want string
	}{
		{"no bounds", lotindex.Filter{Now: t0}, "needs Since and Until"},
		{"until before since", lotindex.Filter{Since: t0, Until: t0.Add(-time.Hour), Now: t0}, "is not before Until"},
		{"empty", lotindex.Filter{Since: t0, Until: t0, Now: t0}, "is not before Until"},
		{"longer than a month", lotindex.Filter{Since: t0.AddDate(-1, 0, 0), Until: t0, Now: t0}, "longer than 744h0m0s"},
	}
	idx := lotindex.New(failingQuery{}, "unused")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []error
			for _, err := range idx.Entries(t.Context(), tt.f) {
				errs = append(errs, err)
			}
			require.Len(t, errs, 1)
			assert.ErrorContains(t, errs[0], tt.want)
		})
	}
}

// seqOf yields entries, then err if it is not nil.
func seqOf(entries []lotindex.Entry, err error) iter.Seq2[lotindex.Entry, error] {
	return func(yield func(lotindex.Entry, error) bool) {
		for _, en := range entries {
			if !yield(en, nil) {
				return
			}
		}
		if err != nil {
			yield(lotindex.Entry{}, err)
		}
	}
}

func TestSummarize(t *testing.T) {
	entries := []lotindex.Entry{
		entry("p1", "orders", "poison", "PoisonMessage", time.Hour),
		entry("x1", "orders", "exhausted", "Rejected", 2*time.Hour),
		entry("p2", "orders", "poison", "PoisonMessage", 0),
		entry("q1", "payments", "poison", "PoisonMessage", 3*time.Hour),
		entry("v1", "orders", "poison", "", 4*time.Hour),
	}
	sum, err := lotindex.Summarize(seqOf(entries, nil))
	require.NoError(t, err)
	group := func(breaker, reason, errorType string, n int, oldest time.Duration) lotindex.Group {
		return lotindex.Group{Breaker: breaker, Reason: reason, ErrorType: errorType, Count: lotindex.Count{N: n, Oldest: t0.Add(oldest)}}
	}
	assert.Equal(t, lotindex.Summary{
		Groups: []lotindex.Group{
			group("orders", "exhausted", "Rejected", 1, 2*time.Hour),
			group("orders", "poison", "", 1, 4*time.Hour),
			group("orders", "poison", "PoisonMessage", 2, 0),
			group("payments", "poison", "PoisonMessage", 1, 3*time.Hour),
		},
		Total: lotindex.Count{N: 5, Oldest: t0},
	}, sum)

	empty, err := lotindex.Summarize(seqOf(nil, nil))
	require.NoError(t, err)
	assert.Equal(t, lotindex.Summary{}, empty)

	_, err = lotindex.Summarize(seqOf(entries, errors.New("table unreachable")))
	assert.EqualError(t, err, "table unreachable")
}

// The copies a retried park puts in the lot are one message: one entry,
// naming the copy parked last. Another attempt or another message tag is
// another message.
func TestCopiesOfAMessageAreOneEntry(t *testing.T) {
	e := newEnv(t)
	first := entry("copy-1", "orders", "poison", "", 0)
	first.OriginID = "o-1"
	second := first
	second.MessageID, second.ParkedAt = "copy-2", t0.Add(time.Second)
	next := first
	next.MessageID, next.Attempt = "next", 2
	other := first
	other.MessageID, other.Tag = "other", "m0000beef"
	e.put(t, first, second, next, other)
	assert.ElementsMatch(t, []string{"copy-2", "next", "other"}, ids(e.list(t, window())))
}

// A take holds for one copy of a message: that copy may take it again, no
// other copy can, whatever Put and Unlist do after; it is an item of its
// own, never listed, that outlives every copy.
func TestATakeHoldsForOneCopy(t *testing.T) {
	e := newEnv(t)
	en := entry("copy-1", "orders", "poison", "", 0)
	e.put(t, en)
	k := en.Key()
	take := func(copyID string) bool {
		t.Helper()
		ok, err := e.index.Take(t.Context(), k, copyID, "r-1", t0)
		require.NoError(t, err)
		return ok
	}
	assert.True(t, take("copy-1"))
	assert.True(t, take("copy-1"), "the copy taken takes it again")
	assert.False(t, take("copy-2"), "another copy is a duplicate")
	assert.Equal(t, []string{"copy-1"}, ids(e.list(t, window())), "the take is not listed")

	late := en
	late.MessageID, late.ParkedAt = "copy-3", t0.Add(time.Minute)
	e.put(t, late) // a copy parked after the take
	assert.False(t, take("copy-3"), "a copy parked after the take is a duplicate too")
	require.NoError(t, e.index.Unlist(t.Context(), k))
	assert.Empty(t, e.list(t, window()), "unlisted")
	assert.False(t, take("copy-2"), "the take outlives its entry")

	taken := e.item(t, "parked#taken#1##origin-copy-1")
	assert.Equal(t, s("copy-1"), taken["taken"])
	assert.Equal(t, s("r-1"), taken["taken_by"])
	assert.Equal(t, n(strconv.FormatInt(t0.Add(lotindex.TakenFor).Unix(), 10)), taken["ttl"], "kept twice the lot's retention")

	unindexed := lotindex.Key{OriginID: "never-indexed", Attempt: 3, Tag: "m12345678"}
	ok, err := e.index.Take(t.Context(), unindexed, "copy-9", "r-2", t0)
	require.NoError(t, err)
	assert.True(t, ok, "a message without an entry is taken too")
	ok, err = e.index.Take(t.Context(), unindexed, "copy-10", "r-3", t0)
	require.NoError(t, err)
	assert.False(t, ok)
}
