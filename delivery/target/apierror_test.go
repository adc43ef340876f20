package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/redrive/redrive/breaker"
	"github.com/stretchr/testify/assert"
)

func TestAPIFailure(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode string
		want     breaker.Outcome
	}{
		{
			name:     "throttled",
			err:      &smithy.OperationError{ServiceID: "Lambda", OperationName: "Invoke", Err: &lambdatypes.TooManyRequestsException{}},
			wantCode: "TooManyRequestsException", want: breaker.Throttled,
		},
		{
			name:     "SQS throttled",
			err:      &smithy.OperationError{ServiceID: "SQS", OperationName: "SendMessage", Err: &smithy.GenericAPIError{Code: "RequestThrottled"}},
			wantCode: "RequestThrottled", want: breaker.Throttled,
		},
		{
			name:     "SQS throttled with the legacy prefix",
			err:      &smithy.GenericAPIError{Code: "AWS.SimpleQueueService.RequestThrottled"},
			wantCode: "RequestThrottled", want: breaker.Throttled,
		},
		{
			name:     "throttling behind the queue's KMS key",
			err:      &smithy.GenericAPIError{Code: "KmsThrottled"},
			wantCode: "KmsThrottled", want: breaker.Throttled,
		},
		{
			name:     "generic throttling code",
			err:      &smithy.GenericAPIError{Code: "ThrottlingException"},
			wantCode: "ThrottlingException", want: breaker.Throttled,
		},
		{
			name:     "service fault",
			err:      &smithy.GenericAPIError{Code: "ServiceException", Fault: smithy.FaultServer},
			wantCode: "ServiceException", want: breaker.Transient,
		},
		{
			name:     "configured poison code",
			err:      fmt.Errorf("send: %w", &smithy.GenericAPIError{Code: "InvalidParameterValue", Message: "Message must be shorter than 1048576 bytes."}),
			wantCode: "InvalidParameterValue", want: breaker.Poison,
		},
		{
			name:     "deadline",
			err:      &smithy.OperationError{Err: &smithyhttp.RequestSendError{Err: context.DeadlineExceeded}},
			wantCode: "Timeout", want: breaker.Transient,
		},
		{
			name:     "canceled",
			err:      &smithy.CanceledError{Err: context.Canceled},
			wantCode: "Canceled", want: breaker.Transient,
		},
		{
			name:     "connection refused",
			err:      &smithy.OperationError{Err: &smithyhttp.RequestSendError{Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}},
			wantCode: "RequestSendError", want: breaker.Transient,
		},
		{
			name:     "undecodable 502 from a proxy",
			err:      &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 502}}, Err: errors.New("failed to decode")},
			wantCode: "HTTP502", want: breaker.Transient,
		},
		{
			name:     "anything else",
			err:      errors.New("retry quota exceeded"),
			wantCode: "UnknownError", want: breaker.Transient,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := apiFailure(tt.err, "InvalidParameterValue")
			assert.Equal(t, Result{Outcome: tt.want, ErrorType: tt.wantCode, Message: tt.err.Error()}, got)
		})
	}
}
