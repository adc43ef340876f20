package typedhandler_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/lambda/typedhandler"
)

type event struct {
	Name  string            `json:"name"`
	Count int               `json:"count,omitempty"`
	At    time.Time         `json:"at"`
	Tags  map[string]string `json:"tags,omitempty"`
	Note  *string           `json:"note"`
	Inner struct {
		N    int       `json:"n"`
		At   time.Time `json:"at"`
		Data []byte    `json:"data"`
	} `json:"inner"`
	List []struct {
		N int `json:"n"`
	} `json:"list,omitempty"`
}

// echo returns its event, or fails when the event asks it to.
func echo[T any](_ context.Context, in T) (T, error) {
	if e, ok := any(in).(event); ok && e.Name == "fail" {
		return in, errors.New("asked to fail")
	}
	return in, nil
}

// sameAsAWSLambdaGo checks that typedhandler.New(fn) answers payload as
// aws-lambda-go's own reflection handler does: the same bytes, or an error
// of the same text and type.
func sameAsAWSLambdaGo[In, Out any](t *testing.T, fn func(context.Context, In) (Out, error), payload string) {
	t.Helper()
	want, wantErr := lambda.NewHandler(fn).Invoke(context.Background(), []byte(payload))
	got, err := typedhandler.New(fn).Invoke(context.Background(), []byte(payload))
	if wantErr != nil {
		require.Error(t, err, "aws-lambda-go fails with %v", wantErr)
		assert.Equal(t, reflect.TypeOf(wantErr), reflect.TypeOf(err))
		assert.Equal(t, wantErr.Error(), err.Error())
		return
	}
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestNewAnswersAsAWSLambdaGo(t *testing.T) {
	for name, payload := range map[string]string{
		"every field":                   `{"name":"a<b>&c","count":3,"at":"2026-01-01T00:00:00.5Z","tags":{"k":"v"},"note":"n"}`,
		"fields in any case":            `{"NAME":"upper","Count":2}`,
		"a field twice":                 `{"name":"first","name":"second"}`,
		"unknown fields":                `{"name":"x","other":[1,2,{"a":null}]}`,
		"null":                          `null`,
		"whitespace around":             " \n\t{\"name\":\"x\"} \r\n",
		"invalid UTF-8 in a string":     "{\"name\":\"\xff\"}",
		"escaped characters":            `{"name":"\u00e9\n\"\u2028"}`,
		"a wrong type":                  `{"name":3}`,
		"a bad time":                    `{"at":"yesterday"}`,
		"the handler's own error":       `{"name":"fail"}`,
		"a number out of int range":     `{"count":1e40}`,
		"a fraction for an integer":     `{"count":1.5}`,
		"an array for an object":        `[1,2]`,
		"html characters unescaped":     `{"name":"<script>&</script>"}`,
		"an empty object":               `{}`,
		"a string for a nested map":     `{"tags":"no"}`,
		"nested null values allowed":    `{"tags":null,"note":null}`,
		"a nested wrong type":           `{"inner":{"n":"x"}}`,
		"a wrong type in a list":        `{"list":[{"n":1},{"n":"x"}]}`,
		"a time that is not a string":   `{"inner":{"at":5}}`,
		"bad base64":                    `{"inner":{"data":"!!"}}`,
		"a wrong type, then a bad time": `{"name":3,"at":"yesterday"}`,
	} {
		t.Run(name, func(t *testing.T) { sameAsAWSLambdaGo(t, echo[event], payload) })
	}
}

func TestNewPassesARawMessageAsIs(t *testing.T) {
	for _, payload := range []string{`{"b":1,"a":[true,null]}`, " \n[1, 2] ", `"text"`} {
		sameAsAWSLambdaGo(t, echo[json.RawMessage], payload)
	}
}

func TestNewDecodesAnSQSEvent(t *testing.T) {
	payload := `{"Records":[{"messageId":"m-1","receiptHandle":"r","body":"{\"k\":1}","attributes":{"ApproximateReceiveCount":"2"},` +
		`"messageAttributes":{"tenant":{"stringValue":"acme","dataType":"String"}},"md5OfBody":"x","eventSource":"aws:sqs",` +
		`"eventSourceARN":"arn:aws:sqs:us-east-1:123456789012:dlq","awsRegion":"us-east-1"}]}`
	sameAsAWSLambdaGo(t, echo[events.SQSEvent], payload)
}

// The handler's result is the handler's own memory: a second invocation
// does not change the first's.
func TestNewResultsAreTheirOwn(t *testing.T) {
	h := typedhandler.New(echo[event])
	first, err := h.Invoke(context.Background(), []byte(`{"name":"one"}`))
	require.NoError(t, err)
	_, err = h.Invoke(context.Background(), []byte(`{"name":"two, longer"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"one","at":"0001-01-01T00:00:00Z","note":null,"inner":{"n":0,"at":"0001-01-01T00:00:00Z","data":null}}`, string(first))
}
