package executor

import (
	"context"
	"net/http"

	"github.com/aws/smithy-go"

	"github.com/redrive/redrive/emulate/quota"
)

// LimitConcurrency returns inv held to the Lambda concurrency of account
// (quota.LambdaConcurrency): an invocation while the account has that
// many running fails as Lambda's do, with TooManyRequestsException (a
// Task state's Lambda.TooManyRequestsException). An invocation runs from
// its call to its return, on the executor's clock: a handler suspended in
// Delay still counts.
func LimitConcurrency(inv Invoker, account *quota.Account) Invoker {
	return concurrencyLimit{next: inv, account: account}
}

// concurrencyLimit is an Invoker within the account's concurrency.
type concurrencyLimit struct {
	next    Invoker
	account *quota.Account
}

// Invoke counts the invocation among the running ones while it runs, or
// refuses it.
func (c concurrencyLimit) Invoke(ctx context.Context, function string, payload []byte) (Invocation, error) {
	if err := c.account.Enter(quota.LambdaConcurrency); err != nil {
		return Invocation{}, &ServiceError{StatusCode: http.StatusTooManyRequests,
			Err: &smithy.GenericAPIError{Code: "TooManyRequestsException", Message: "Rate Exceeded."}}
	}
	defer c.account.Leave(quota.LambdaConcurrency)
	return c.next.Invoke(ctx, function, payload)
}
