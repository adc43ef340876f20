package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/redrive/redrive/admin"
)

// listRules runs rule-list an execution per page, each with the next of
// the page before, and prints the pages as one output: every rule in
// force, then the whole audit trail, without a next. A page that fails
// fails the list: InvalidCommand on next when the rules changed while it
// was listed, so running it again lists them as they now are.
func listRules(ctx context.Context, api adminAPI, call adminCall, stdout, stderr io.Writer) int {
	var all admin.Output
	request := call.request
	for {
		data, code := execute(ctx, api, call, request, stderr)
		if code != exitOK {
			return code
		}
		var page admin.Output
		if err := json.Unmarshal(data, &page); err != nil {
			fmt.Fprintf(stderr, "redrive admin: read a %s output: %v\n", request.Command, err)
			return exitFailure
		}
		all.Command, all.InForce = page.Command, page.InForce
		all.Rules = append(all.Rules, page.Rules...)
		all.Audit = append(all.Audit, page.Audit...)
		all.Notes = append(all.Notes, page.Notes...)
		if page.Next == "" {
			break
		}
		if page.Next == request.Next {
			fmt.Fprintf(stderr, "redrive admin: a %s output's next is the one its request gave: the list would not end\n", request.Command)
			return exitFailure
		}
		request.Next = page.Next
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		fmt.Fprintf(stderr, "redrive admin: encode the rules: %v\n", err)
		return exitFailure
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(stderr, "redrive admin: write the output: %v\n", err)
		return exitFailure
	}
	return exitOK
}
