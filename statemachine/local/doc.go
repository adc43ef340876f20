// Package local is the project's own AWS Step Functions executor: it runs
// the ASL subset the project uses (Task, Choice, Wait, Pass, Succeed, Fail
// with the documented input/output processing, Retry, Catch and timeouts)
// faithfully, on a virtual clock shared with in-process Lambda handlers, so
// hours of cooldowns simulate in milliseconds and deterministically.
//
// Definitions are parsed, validated and evaluated by package
// statemachine/asl: anything outside that subset is rejected at load with
// an error naming the state and field, never ignored. This package is the
// engine around it: the Executor, its timeline, executions and their
// histories, Task invocations and callbacks, and the Registry.
//
// Task resources are "arn:aws:states:::lambda:invoke" (with AWS's result
// shape), its callback form "arn:aws:states:::lambda:invoke.waitForTaskToken"
// (completed through SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat
// with the $$.Task.Token it passes) and plain Lambda function ARNs,
// resolved through an Invoker: the in-process Registry, or a Lambda Invoke
// API endpoint over HTTP.
package local
