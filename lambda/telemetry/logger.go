package telemetry

import (
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// NewLogger returns the tasks' logger. In Lambda (AWS_LAMBDA_FUNCTION_NAME
// is set) it is lambdacontext.NewLogger(): the request id on every line,
// JSON when the function's log format is JSON (the stack sets it), level
// from AWS_LAMBDA_LOG_LEVEL. Elsewhere it is JSONLogger(os.Stdout).
func NewLogger() *slog.Logger {
	if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
		return lambdacontext.NewLogger()
	}
	return JSONLogger(os.Stdout)
}

// JSONLogger writes JSON lines to w with Lambda's key names ("timestamp",
// "message"), so local runs and tests read like Lambda's logs.
func JSONLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: lambdacontext.ReplaceAttr}))
}
