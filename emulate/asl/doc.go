// Package asl compiles and evaluates the Amazon States Language subset
// that the local executor (emulate/executor) runs: Task, Choice, Wait,
// Pass, Succeed and Fail states, with JSONPath input and output
// processing, intrinsic functions, Retry, Catch and timeouts.
//
// Parse validates a definition and compiles it once. Its states then
// evaluate what the language defines on generic JSON values (as
// DecodeJSON returns them): paths, Parameters and ResultSelector
// templates, intrinsic functions, Choice Rules, Wait durations, and the
// matching of errors against Retry and Catch. Executions, clocks,
// histories and Lambda invocations are the engine's, not this package's.
//
// Anything in a definition outside the subset is rejected by Parse with a
// *DefinitionError naming the state and field, never ignored. Errors
// raised while evaluating are *Error values carrying the error name that
// Retry and Catch match.
package asl
