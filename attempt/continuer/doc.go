// Package continuer is the Continue task: it carries a redrive on in a new
// execution of the same state machine, long before the running one nears
// Step Functions' 25,000-event history limit.
//
// The new execution gets the same document with its continuation count
// increased and its cycle count reset, under the name
// Document.ExecutionName (origin, attempt, continuation), so a retried
// Continue finds the execution it already started
// (ExecutionAlreadyExists) and succeeds with its ARN.
package continuer
