// Package executor is the project's own AWS Step Functions executor: it runs
// the ASL subset the project uses (Task, Choice, Wait, Pass, Succeed, Fail
// with the documented input/output processing, Retry, Catch and timeouts)
// faithfully, on a virtual clock shared with in-process Lambda handlers, so
// hours of cooldowns simulate in milliseconds and deterministically.
//
// Definitions are parsed, validated and evaluated by package
// emulate/asl: anything outside that subset is rejected at load with
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
//
// Snapshot and Restore carry an executor's state across a process restart
// (redrive local --state). A snapshot is one JSON document whose format
// field, "statemachine/local.snapshot/v1", names its version: the state
// machines (name, definition, role, creation date) and every execution
// the executor holds (not those Options.Retention evicted): its
// description, its history unless Options.FinishedHistories dropped it,
// and for a running one where it is: its state, the state's input, the
// context object's data (state entered time, retry count), retry counters,
// transitions, its random source, and what it waits for. The executor's
// clock, random source and counters (executions started, task tokens
// issued, events scheduled) are in it too, so that on the virtual clock a
// run snapshotted and restored between two RunUntil calls continues as it
// would have, but for a Lambda invocation in flight (below). Events
// scheduled with At are not in it.
//
// Times are absolute. A restored virtual clock reads the snapshot's time;
// a scaled clock reads its own, and what fell due meanwhile is due at
// once. An execution resumes as follows:
//   - waiting to start, in a Wait state, or for a Task state's retry: at
//     the time it would have (a scaled clock that reads earlier than the
//     snapshot's makes it wait that much longer);
//   - in a Task state whose Lambda handler was running: the invocation
//     was lost with the process, so the function is invoked again at once
//     with the same payload, as Lambda retries an invocation, under the
//     same TimeoutSeconds deadline; functions should be idempotent. On
//     the virtual clock this is where a restored run may depart from an
//     uninterrupted one;
//   - in a .waitForTaskToken task: it goes on waiting for the same token,
//     which SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat accept
//     after the restore, and its TimeoutSeconds and HeartbeatSeconds
//     deadlines stand; a token sent before the snapshot is applied;
//   - with TimeoutSeconds on its definition: it times out when it would
//     have.
//
// Restore reads the format first and names another version as such, then
// rejects unknown fields and a snapshot inconsistent with itself or with
// its options (Region, Account and Seed, which ARNs and task tokens hold),
// naming what is wrong.
package executor
