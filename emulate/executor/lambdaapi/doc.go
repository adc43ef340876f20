// Package lambdaapi speaks the Lambda Invoke REST API on both sides: a
// server that hosts a executor.Invoker (typically the in-process Registry) so
// Step Functions Local's LAMBDA_ENDPOINT and the real SDK client can reach
// in-process handlers, and an Invoker that calls any Invoke API endpoint
// through the aws-sdk-go-v2 lambda client.
package lambdaapi
