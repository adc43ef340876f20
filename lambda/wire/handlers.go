package wire

import (
	"errors"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/lambda/typedhandler"
	"github.com/redrive/redrive/park"
	"github.com/redrive/redrive/room/release"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/starter"
)

// The functions' names: their mains' directories under cmd/lambda, and the
// names local hosts register them under.
const (
	FunctionStarter  = "starter"
	FunctionAttempt  = "attempt"
	FunctionPark     = "park"
	FunctionAdmin    = "admin"
	FunctionWaitRoom = "waitroom"
	FunctionRelease  = "release"
)

// Handlers are the six task handlers of one deployment. A test may wrap
// one by registering its own function under the handler's name.
type Handlers struct {
	Starter  *starter.Handler
	Attempt  *attempt.Handler
	Park     *park.Handler
	Admin    *admin.Handler
	WaitRoom *waitroom.Handler
	Release  *release.Handler
}

// All builds the six handlers from cfg; the error names every problem of
// every function.
func (b *Builder) All(cfg Config) (Handlers, error) {
	var h Handlers
	var errs [6]error
	h.Starter, errs[0] = b.Starter(cfg.Starter)
	h.Attempt, errs[1] = b.Attempt(cfg.Attempt)
	h.Park, errs[2] = b.Park(cfg.Park)
	h.Admin, errs[3] = b.Admin(cfg.Admin, cfg.Attempt.Room)
	h.WaitRoom, errs[4] = b.WaitingRoom(cfg.Attempt.Room)
	h.Release, errs[5] = b.Release(cfg.Attempt.Room, cfg.Attempt.Policy)
	if err := errors.Join(errs[:]...); err != nil {
		return Handlers{}, err
	}
	return h, nil
}

// ByName returns each handler's Handle method under its function's name,
// as the lambda.Handler a local host's registry invokes (see
// lambda/typedhandler).
func (h Handlers) ByName() map[string]lambda.Handler {
	return map[string]lambda.Handler{
		FunctionStarter:  typedhandler.New(h.Starter.Handle),
		FunctionAttempt:  typedhandler.New(h.Attempt.Handle),
		FunctionPark:     typedhandler.New(h.Park.Handle),
		FunctionAdmin:    typedhandler.New(h.Admin.Handle),
		FunctionWaitRoom: typedhandler.New(h.WaitRoom.Handle),
		FunctionRelease:  typedhandler.New(h.Release.Handle),
	}
}
