// Package asltest builds state machine definitions for the tests of
// package asl and of the executor that runs it.
package asltest

// Wrap is a definition of one state, S (given as its JSON object), which
// it starts at, and the extra states (each given as "Name":{...}).
func Wrap(state string, extra ...string) string {
	states := `"S":` + state
	for _, x := range extra {
		states += "," + x
	}
	return `{"StartAt":"S","States":{` + states + `}}`
}
