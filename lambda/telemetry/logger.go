package telemetry

import (
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/redrive/redrive/clock"
)

// NewLogger returns the tasks' logger. In Lambda (AWS_LAMBDA_FUNCTION_NAME
// is set) it is lambdacontext.NewLogger(): the request id on every line,
// JSON when the function's log format is JSON (the stack sets it), level
// from AWS_LAMBDA_LOG_LEVEL. Elsewhere it is JSONLogger(os.Stdout). Both
// stamp lines with the wall clock, the stack's clock in AWS.
func NewLogger() *slog.Logger {
	if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
		return lambdacontext.NewLogger()
	}
	return JSONLogger(os.Stdout)
}

// JSONLogger writes JSON lines to w with Lambda's key names ("timestamp",
// "message"), so local runs and tests read like Lambda's logs; each line's
// timestamp is the wall clock's.
func JSONLogger(w io.Writer) *slog.Logger { return JSONLoggerOn(w, clock.Wall) }

// JSONLoggerOn is JSONLogger with each line's timestamp read from clk: a
// local stack passes its own clock (the executor's, virtual or scaled), so
// that a line's one time is the time its handlers and the history read,
// not the wall clock's.
func JSONLoggerOn(w io.Writer, clk clock.Clock) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			a.Value = slog.TimeValue(clk.Now())
		}
		return lambdacontext.ReplaceAttr(groups, a)
	}}))
}
