// Package wire builds the task handlers (starter, attempt, park, admin,
// waitroom, release) from their settings and their dependencies, in one
// place for every host: the Lambda mains under cmd/lambda (AWS clients,
// the wall clock, Lambda's logger), the emulator behind `redrive local`
// and the in-process stack of the tests and the simulation (local clients,
// a virtual clock, seeded randomness, hooks on the breakers).
//
// A main reads its function's settings and builds its one handler:
//
//	cfg, err := wire.AttemptConfigFromEnv(os.Getenv)
//	...
//	b, err := wire.FromAWS(context.Background())
//	...
//	h, err := b.Attempt(cfg)
//	...
//	lambda.Start(h.Handle)
//
// A local host builds all six on its own clients with Builder.All and
// registers Handlers.ByName.
package wire
