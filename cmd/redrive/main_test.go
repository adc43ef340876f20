package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDispatch(t *testing.T) {
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // substrings; "" means empty
	}{
		{name: "no command", args: nil, code: exitUsage, stderr: "Usage: redrive <command>"},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Commands:\n  run     simulate an outage"},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: "admin   status|reset|open|close|release"},
		{name: "unknown command", args: []string{"serve"}, code: exitUsage, stderr: `redrive: unknown command "serve"`},
		{name: "local help", args: []string{"local", "-h"}, code: exitOK, stderr: "Usage: redrive local [flags]"},
		{name: "local bad flag", args: []string{"local", "--port", "1"}, code: exitUsage, stderr: "flag provided but not defined: -port"},
		{name: "admin usage error", args: []string{"admin", "status"}, code: exitUsage, stderr: "--breaker is required"},
		{name: "help lists parked", args: []string{"help"}, code: exitOK, stdout: "parked  summary|list what is in the parking lot"},
		{name: "parked usage error", args: []string{"parked"}, code: exitUsage, stderr: "redrive parked: missing command"},
		{name: "parked help", args: []string{"parked", "list", "-h"}, code: exitOK, stderr: "Usage: redrive parked summary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(t.Context(), tt.args, &stdout, &stderr)
			assert.Equal(t, tt.code, code)
			for _, c := range []struct{ got, want string }{{stdout.String(), tt.stdout}, {stderr.String(), tt.stderr}} {
				if c.want == "" {
					assert.Empty(t, c.got)
				} else {
					assert.Contains(t, c.got, c.want)
				}
			}
		})
	}
}
