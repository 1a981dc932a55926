package app

import (
	"errors"
	"strings"

	"github.com/pygate/pygate/runner"
)

// plainError turns an internal error into one or two sentences a person can
// act on.
func plainError(err error) string {
	var se *runner.SetupError
	if errors.As(err, &se) {
		return se.Problem + " " + se.Hint
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no space left"):
		return "The disk is full. Free some space and try again."
	case strings.Contains(msg, "permission denied"):
		return "PyGate was not allowed to use a file it needs (" + msg + "). Check the permissions of PyGate's home folder."
	}
	return "Something went wrong: " + msg + "."
}
