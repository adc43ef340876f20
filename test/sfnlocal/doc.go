// Package sfnlocal is the scenario suite that runs the redrive, release
// and admin state machines on Step Functions Local
// (amazon/aws-stepfunctions-local), in real time, with the project's
// handlers served by the local stack's Lambda Invoke API server, through
// the real sfn and sqs clients: healthy delivery (3 transitions), a poison
// message parked, a short outage that trips the breaker, holds the
// messages in the room and recovers through a probe released by the
// breaker's controller, and admin commands. The attempt state machine runs
// as a Standard workflow (local.Options.StandardAttempts; the definition
// deployed Express), so that each try's history can be read.
//
// The tests skip, with a one-line reason, unless one of these is set:
//
//	SFN_LOCAL_ENDPOINT   Step Functions Local, e.g. http://localhost:8083
//	SFN_LOCAL_SELFTEST=1 run against this project's executor instead, on
//	                     a scaled clock behind its Step Functions API (the
//	                     same endpoint contract, so the suite proves itself)
//
// Other settings:
//
//	LAMBDA_SERVER_ADDR   where the Lambda server listens, default
//	                     127.0.0.1:9001 (0.0.0.0:9001 when Step Functions
//	                     Local runs in Docker); Step Functions Local's
//	                     LAMBDA_ENDPOINT must reach it
//	WAIT_TIME_SCALE      the value Step Functions Local was started with
//	                     (default 1, its own default); the handlers' clock
//	                     runs 1/WAIT_TIME_SCALE times faster than the wall
//	                     clock so that breaker cooldowns line up with the
//	                     scaled Waits (see emulate/local)
//	DDB_ENDPOINT         a DynamoDB endpoint (DynamoDB Local, dynalite);
//	                     default the embedded minidyn
//
// See cmd/redrive/README.md for the compose file and `make test-sfn-local`.
package sfnlocal
