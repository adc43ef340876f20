// Package release is the releaser: the release state machine's tick task,
// which resumes the waiting room's messages oldest first at the pace the
// target takes (package pace), and the Launcher that starts one releaser
// per breaker key when none runs.
package release
