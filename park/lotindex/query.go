package lotindex

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/dynamo"
)

// MaxRetention is SQS's longest message retention, 14 days: no message
// stays in the parking lot longer, and no entry in the index.
const MaxRetention = 14 * 24 * time.Hour

// MaxWindow bounds a Filter's window, so that a mistaken bound does not
// make thousands of queries: 31 days.
const MaxWindow = 31 * 24 * time.Hour

// Filter selects the entries Index.Entries lists.
type Filter struct {
	// Since and Until bound the parked time: Since <= ParkedAt < Until.
	// Both are required, at most MaxWindow apart.
	Since, Until time.Time
	// Breaker, Reason and ErrorType, when set, must equal the entry's;
	// None matches an entry that has none.
	Breaker, Reason, ErrorType string
	// Now is the time entries expire against: an entry whose message the
	// lot has dropped by then is left out, though DynamoDB may not have
	// deleted it yet.
	Now time.Time
}

// validate reports what is wrong with f's window.
func (f Filter) validate() error {
	switch {
	case f.Since.IsZero() || f.Until.IsZero():
		return errors.New("lotindex: a filter needs Since and Until")
	case !f.Since.Before(f.Until):
		return fmt.Errorf("lotindex: Since %s is not before Until %s", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	case f.Until.Sub(f.Since) > MaxWindow:
		return fmt.Errorf("lotindex: a window of %s is longer than %s: the parking lot keeps a message at most %s",
			f.Until.Sub(f.Since), MaxWindow, MaxRetention)
	}
	return nil
}

// Entries lists the entries f selects, oldest first: one Query of the
// index per UTC day from f.Since to f.Until, the attribute conditions
// applied by DynamoDB. Iteration stops at the first error, which it
// yields.
func (x *Index) Entries(ctx context.Context, f Filter) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if err := f.validate(); err != nil {
			yield(Entry{}, err)
			return
		}
		since, until := f.Since.UTC(), f.Until.UTC()
		last := until.Add(-time.Nanosecond).Format(dayLayout)
		for day := since; ; day = day.AddDate(0, 0, 1) {
			name := day.Format(dayLayout)
			if name > last {
				return
			}
			in := f.query(x.table, name, since.Format(seqTime), until.Format(seqTime))
			for {
				out, err := x.api.Query(ctx, in)
				if err != nil {
					yield(Entry{}, fmt.Errorf("lotindex: query %s: %w", name, err))
					return
				}
				for _, it := range out.Items {
					e, err := decode(it)
					if !yield(e, err) || err != nil {
						return
					}
				}
				if in.ExclusiveStartKey = out.LastEvaluatedKey; in.ExclusiveStartKey == nil {
					break
				}
			}
		}
	}
}

// query is the Query of day's partition for f: parked_seq between lo and
// hi (a sort key starts with the parked time, followed by "#", so an entry
// parked at hi itself sorts after hi and is left out), and f's attribute
// conditions as the filter.
func (f Filter) query(table, day, lo, hi string) *dynamodb.QueryInput {
	names := map[string]string{"#day": attrDay, "#seq": attrSeq, "#ttl": attrTTL}
	values := map[string]types.AttributeValue{
		":day": dynamo.S(day), ":lo": dynamo.S(lo), ":hi": dynamo.S(hi), ":now": dynamo.N(f.Now.Unix()),
	}
	conds := []string{"#ttl > :now"}
	for i, c := range []struct{ attr, value string }{{attrBreaker, f.Breaker}, {attrReason, f.Reason}, {attrErrorType, f.ErrorType}} {
		if c.value == "" {
			continue
		}
		name := "#a" + strconv.Itoa(i)
		names[name] = c.attr
		if c.value == None {
			conds = append(conds, "attribute_not_exists("+name+")")
			continue
		}
		value := ":a" + strconv.Itoa(i)
		values[value] = dynamo.S(c.value)
		conds = append(conds, name+" = "+value)
	}
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(dynamo.ParkedIndex),
		KeyConditionExpression:    aws.String("#day = :day AND #seq BETWEEN :lo AND :hi"),
		FilterExpression:          aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}
}
