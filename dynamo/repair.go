package dynamo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
)

// Raw returns key's stored item in DynamoDB's JSON form ({"state":
// {"S": "OPEN"}, ...}), for a person to read when it does not decode (a
// corrupt item, or one a newer version wrote); nil when there is none.
func (s *Store) Raw(ctx context.Context, key string) (map[string]any, error) {
	item, err := s.rawItem(ctx, "read", key)
	if err != nil || item == nil {
		return nil, err
	}
	return rawJSON(&types.AttributeValueMemberM{Value: item})["M"].(map[string]any), nil
}

// The conditions of a Replace: that the item has no version attribute
// (replaceNew), or the one it read, of whatever type (replaceOver). Both
// use replaceNames, which every Replace shares and nothing changes.
const (
	replaceNew  = "attribute_not_exists(#version)"
	replaceOver = "#version = :read"
)

var replaceNames = map[string]string{"#version": attrVersion}

// Replace overwrites key's item, whatever it holds, with row: the repair
// of an item that does not decode, by an operator's reset. It is
// conditional still, on the item being the one it read (the same version
// attribute, whatever its type, or none), so a concurrent change is never
// overwritten (a *breaker.ConflictError: read it again and retry). The
// stored row's version is the old one plus one when that was a number, its
// generation likewise; the row as stored is returned.
func (s *Store) Replace(ctx context.Context, row breaker.Row) (breaker.Row, error) {
	item, err := s.rawItem(ctx, "replace", row.Key)
	if err != nil {
		return breaker.Row{}, err
	}
	cond := replaceNew
	var values map[string]types.AttributeValue
	row.Version, row.Generation = 1, 1
	if v, ok := item[attrVersion]; ok {
		cond, values = replaceOver, map[string]types.AttributeValue{":read": v}
		row.Version = number(v) + 1
	}
	if g, ok := item[attrGeneration]; ok {
		row.Generation = number(g) + 1
	}
	if err := checkSave(row.Version-1, row); err != nil {
		return breaker.Row{}, fmt.Errorf("replace breaker %q: %w", row.Key, err)
	}
	next := encode(row, asItem)
	next[PKAttr] = itemKey(row.Key)[PKAttr]
	_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(s.table),
		Item:                      next,
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  replaceNames,
		ExpressionAttributeValues: values,
	})
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return breaker.Row{}, fmt.Errorf("replace breaker %q: %w", row.Key, &breaker.ConflictError{Key: row.Key, Attempts: 1})
	}
	if err != nil {
		return breaker.Row{}, fmt.Errorf("replace breaker %q in table %q: %w", row.Key, s.table, err)
	}
	return row, nil
}

// number reads av as an integer, leniently: 0 when it is not a number.
func number(av types.AttributeValue) int64 {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// rawJSON is av in DynamoDB's JSON form: a one-member object named by its
// type.
func rawJSON(av types.AttributeValue) map[string]any {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		out := make([]string, len(v.Value))
		for i, b := range v.Value {
			out[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": out}
	case *types.AttributeValueMemberL:
		out := make([]any, len(v.Value))
		for i, e := range v.Value {
			out[i] = rawJSON(e)
		}
		return map[string]any{"L": out}
	case *types.AttributeValueMemberM:
		out := make(map[string]any, len(v.Value))
		for k, e := range v.Value {
			out[k] = rawJSON(e)
		}
		return map[string]any{"M": out}
	}
	return map[string]any{"unknown": fmt.Sprintf("%T", av)}
}
