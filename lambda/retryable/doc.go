// Package retryable holds the task errors that more than one state machine
// matches by name in its Retry and Catch rules, and Unexpected, the name
// of every error a task did not classify.
//
// A Lambda handler's error reaches Step Functions as its Go type name
// (aws-lambda-go reports *BreakerContention as "BreakerContention"; an
// fmt.Errorf wrapper as "wrapError"), so these are exported struct types
// that the handlers return unwrapped. Errors only one handler returns live
// in that handler's package.
package retryable
