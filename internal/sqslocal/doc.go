// Package sqslocal is an in-process Amazon SQS server for local runs and
// tests: an http.Handler that speaks the SQS AWS JSON 1.0 protocol, so the
// real aws-sdk-go-v2 sqs client talks to it unchanged.
//
// It implements standard queues with SQS's documented semantics: queue and
// message attribute validation, visibility timeouts, delays, retention,
// long polling, receipt handles, redrive to a dead-letter queue after
// maxReceiveCount receives, dead-letter queue redrive (the message move
// tasks and ListDeadLetterSourceQueues), queue tags, the body and
// message-attribute MD5 digests the SDKs verify, batch calls with
// per-entry failures, and errors in the JSON protocol's shape (the __type
// body plus the x-amzn-query-error header the SDK maps to typed errors
// such as *types.QueueDoesNotExist).
//
// Time comes from an injected clock (Options.Now and Options.After), so a
// virtual-time simulation drives visibility timeouts, delays, long polls
// and message move tasks without waiting. Messages and Depth let tests and the simulation inspect
// a queue without receiving from it.
//
// Where the behaviour is not obvious, it follows the AWS documentation:
// the maximum message size is 1 MiB (raised from 256 KiB in 2025; see
// Options.MaxMessageSize), a message moves to the dead-letter queue when a
// receive finds it already received maxReceiveCount times, a stale receipt
// handle makes DeleteMessage succeed without deleting, PurgeQueue may run
// once a minute per queue, and a deleted queue's name is reusable after 60
// seconds. FIFO queues and the permission actions are not implemented;
// they fail with UnsupportedOperation.
//
// A message move task (StartMessageMoveTask) takes a queue that is the
// dead-letter queue of another as its source and moves, oldest first, the
// messages that were on it when the task started: those are its
// ApproximateNumberOfMessagesToMove, "obtained at the time of starting"
// the task; later arrivals wait for another task. Each message moves as a
// new one, as the redrive guide says: a new ID and send time (its
// retention restarts), the same body and attributes, the destination's
// delay. Without a DestinationArn a message goes back to the queue it was
// dead-lettered from. The task runs in its own goroutine on the injected
// clock, MaxNumberOfMessagesPerSecond messages a second, the first at
// once; a message moves only while visible (an in-flight one waits for
// its visibility timeout, one deleted meanwhile is not moved). Each move
// is atomic, so a move, a cancel, a deleted queue or Close never loses or
// duplicates a message; Close stops the running tasks, which end FAILED.
//
// Where AWS does not document the move tasks, sqslocal chooses: without
// MaxNumberOfMessagesPerSecond a task moves 500 messages a second, the
// highest rate a caller may set (AWS optimises the rate for the backlog);
// a message with no queue to go back to (sent to the dead-letter queue
// directly), or whose queue or destination no longer exists, stays on the
// dead-letter queue and fails the task with FailureReason
// AWS.SimpleQueueService.NonExistentQueue, what AWS reports for a deleted
// destination; the source as destination, and cancelling a task that is
// not RUNNING, are InvalidParameterValue. A queue keeps its 10 latest
// tasks, the most ListMessageMoveTasks returns. Tags follow the queue tag
// quotas (length and characters of keys and values, no aws: prefix) but
// not the recommended maximum of 50; CreateQueue on an existing queue
// leaves its tags as they are.
//
// The package's tests run against fauxqs too (make test-fauxqs); FAUXQS.md
// lists where fauxqs departs from the AWS documentation.
package sqslocal
