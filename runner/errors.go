package runner

import (
	"errors"
	"fmt"
)

// permanentError marks an inspector error that a retry cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as permanent: the runner records it as a Failure
// after one attempt instead of retrying. Inspectors use it for answers
// that would be the same next time (bad JSON, a score out of range, a
// missing saved inspection). Permanent(nil) is nil. Errors not marked
// permanent (timeouts, crashes, non-zero exits) are transient.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	if IsPermanent(err) {
		return err
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err, or any error it wraps, was marked by
// Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// FieldError says which field of an inspection is wrong and why. Field is
// the JSON name ("runtime_fidelity", "flags[2].severity"); it is empty
// when the whole document is unreadable.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("field %s: %v", e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }
