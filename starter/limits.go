package starter

import "time"

// BatchWindow is the batching window of the DLQ event source that invokes
// the starter (MaximumBatchingWindowInSeconds, as the CDK stack deploys it
// and the simulation models it): the mapping invokes the starter with a
// full batch, or with what arrived within the window. Each invocation
// writes its keys' pace rows once, so messages arriving fast go ten to an
// invocation rather than one, far under a row's partition limit.
const BatchWindow = time.Second

// StepFunctionsPayloadLimit is Step Functions' limit on an execution input
// and on every state's input and output: 256 KiB of UTF-8.
const StepFunctionsPayloadLimit = 256 << 10

// InputHeadroom is what the starter leaves free under the payload limit
// for what the execution adds to the document on its way, so that a
// document it starts never fails later with States.DataLimitExceeded:
//
//   - the failure history the Attempt appends: MaxHistory (10) failures of
//     at most 256 bytes of message plus about 250 bytes of fields and JSON
//     escaping each, about 5 KiB;
//   - a Catch's {"Error","Cause"} at $.failure: Step Functions keeps up to
//     32,768 characters of Cause, 32 KiB;
//   - the lambda:invoke result the Attempt's output is cut from
//     (Payload plus SdkHttpMetadata, headers and status), about 2 KiB;
//   - the park reason, at most message.MaxParkReason (1 KiB), whatever it
//     quotes (a rule at its limits describes itself in about 50 KB);
//   - the Attempt's result fields, the Park and Continue wrappers and the
//     execution ARN, under 1 KiB.
//
// That is about 41 KiB; 48 KiB leaves a margin for escaping.
const InputHeadroom = 48 << 10

// MaxInputBytes is the largest execution input the starter starts; a
// larger document is parked with an "oversize" reason instead.
const MaxInputBytes = StepFunctionsPayloadLimit - InputHeadroom
