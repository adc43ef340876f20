// Package sqslocal is an in-process Amazon SQS server for local runs and
// tests: an http.Handler that speaks the SQS AWS JSON 1.0 protocol, so the
// real aws-sdk-go-v2 sqs client talks to it unchanged.
//
// It implements standard and FIFO queues with SQS's documented
// semantics: queue and message attribute validation, visibility
// timeouts, delays, retention, long polling, receipt handles, redrive to
// a dead-letter queue after maxReceiveCount receives, dead-letter queue redrive (the message move
// tasks and ListDeadLetterSourceQueues), queue tags, the body and
// message-attribute MD5 digests the SDKs verify, batch calls with
// per-entry failures, and errors in the JSON protocol's shape (the __type
// body plus the x-amzn-query-error header the SDK maps to typed errors
// such as *types.QueueDoesNotExist).
//
// Server.Client returns an in-process Client with the SDK client's method
// signatures for the message operations (SendMessage, ReceiveMessage,
// DeleteMessage, their batch forms, ChangeMessageVisibility and its batch
// form, GetQueueUrl, GetQueueAttributes): the same server work, answers
// and errors as through the SDK over HTTP, without the SDK's middleware,
// JSON or HTTP.
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
// seconds. The permission actions and the KMS attributes are not
// implemented; they fail with UnsupportedOperation.
//
// A FIFO queue (FifoQueue true, a name ending in .fifo) needs a
// MessageGroupId on every message and a MessageDeduplicationId unless
// ContentBasedDeduplication derives one from the body (its SHA-256); a
// message whose ID (per queue, or per group with DeduplicationScope
// messageGroup) was accepted within the last five minutes is not added
// again, and the answer names the first. Each accepted message gets the
// next SequenceNumber (20 digits, increasing). A receive takes, oldest
// first, only messages of groups with none in flight, as many of one
// group as it can before the next, so a group is processed in order; a
// per-message DelaySeconds is refused, and a receipt handle whose
// visibility timeout ended no longer deletes. A FIFO queue's dead-letter
// queue is a FIFO queue: a message moved there keeps its group, takes its
// original message ID as its deduplication ID, as the redrive guide says,
// and a new SequenceNumber; a message move task keeps the groups and the
// order. FifoThroughputLimit is recorded, not enforced: the server has no
// throughput quotas.
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
// Snapshot and Restore carry a server's state across a process restart
// (redrive local --state). A snapshot is one JSON document, copied under
// the server's lock while requests go on, whose format field,
// "sqslocal.snapshot/v1", names its version: every queue (name, creation,
// modification and purge times, settable attributes with the redrive
// policy, tags, messages oldest first, latest message move tasks) and the
// names of queues deleted less than 60 seconds before. A message keeps its
// ID, body, message attributes, AWSTraceHeader, MessageGroupId,
// MessageDeduplicationId, SequenceNumber, DeadLetterQueueSourceArn, send and receive times, receive count, the
// receipt handle of its latest receive, its MD5 digests, and its state:
// visible, or in flight or delayed until a time. A FIFO queue keeps its
// last SequenceNumber and its deduplication window; both fields are
// absent from a standard queue's, so a snapshot without FIFO queues is as
// before.
//
// Times are absolute, so the restored server compares them with its own
// clock and the time between Snapshot and Restore counts, as it does for
// SQS, whose clock does not stop: a delay, visibility timeout, retention
// period or name reservation that ended meanwhile has ended (on a clock
// reading earlier than the snapshot's takenAt they last that much
// longer). An in-flight message comes back in flight until its visibility
// timeout, and its latest receipt handle still deletes it or changes its
// visibility; a visible one comes back visible whatever the clock. Message
// move tasks do not resume: one running when the snapshot was taken is
// recorded FAILED, with a FailureReason saying so, one being cancelled
// CANCELLED; the messages it moved are on their destination and the
// others on the dead-letter queue, none lost or doubled, and a new task
// may start on the restored server. Restore reads the format first and
// names another version as such, then rejects a snapshot of another
// account or region than its options (queue URLs and ARNs hold them),
// unknown fields, invalid queue attributes or tags, a message its digests
// do not match, a duplicate message ID or an inconsistent state, naming
// what is wrong. Options.Rand is not in the snapshot: a seeded reader
// given the same seed again would hand out the first run's message IDs
// and receipt handles again, so seed the restored server's differently.
//
// The package's tests run against fauxqs too (make test-fauxqs); FAUXQS.md
// lists where fauxqs departs from the AWS documentation.
package sqslocal
