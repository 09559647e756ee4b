package bench

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. The HTTP layer maps each to one status in one table; the CLI
// maps EINVALID to its "bad input" exit code.
const (
	EINVALID     = "invalid"     // the caller's input is wrong (HTTP 400)
	ENOTFOUND    = "not_found"   // no such run, target or profile (HTTP 404)
	ECONFLICT    = "conflict"    // valid request, wrong state, e.g. deleting a running run (HTTP 409)
	ETOOLARGE    = "too_large"   // request body over the limit (HTTP 413)
	EUNAVAILABLE = "unavailable" // a dependency (Docker engine, JDK, queue full) is missing or busy (HTTP 503)
	EINTERNAL    = "internal"    // a bug or an unexpected failure; its message is logged, not shown
)

// Error is the application error: a code from the list above and a message
// written for the user. Field names the offending input field, when there is one.
// RetryAfter, on an EUNAVAILABLE error from something busy rather than
// missing (a full run queue), is how long the caller should wait before
// trying again; HTTP sends it as the Retry-After header.
type Error struct {
	Code       string
	Field      string
	Message    string
	RetryAfter time.Duration
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return e.Message
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an EINVALID *Error about one field of the input.
// field is a JSON path such as "profile.stages[2].duration".
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of the first *Error in err's
// chain (with its field), or "internal error" for any other error, so that
// unexpected failures are logged but never leaked.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Error()
	}
	return "internal error"
}

// RetryAfter returns how long the first *Error in err's chain asks the
// caller to wait before trying again, 0 when it does not.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}
