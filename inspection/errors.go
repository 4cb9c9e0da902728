package inspection

import (
	"context"
	"errors"
	"fmt"
	"time"
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

// fatalError marks an error that no other call can escape either: a bad
// API key, an unknown model, an exhausted quota, a missing program.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// Fatal marks err as a misconfiguration: the runner stops the whole run at
// once (no retry, no further call on either side) and returns it, and the
// command exits 2 with one line. Fatal(nil) is nil. A fatal error is also
// permanent.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	if IsFatal(err) {
		return err
	}
	return &fatalError{err: err}
}

// IsFatal reports whether err, or any error it wraps, was marked by Fatal.
func IsFatal(err error) bool {
	var f *fatalError
	return errors.As(err, &f)
}

// retryAfterError is a transient error with the wait the server asked for.
type retryAfterError struct {
	after time.Duration
	err   error
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter marks err as transient with the wait the server asked for
// (HTTP Retry-After, retry-after-ms). The runner waits at least that long
// before the next attempt, or fails the call with the reason when the wait
// is over its cap. RetryAfter(nil, d) is nil.
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &retryAfterError{after: d, err: err}
}

// RetryAfterOf returns the wait asked for by err, if any.
func RetryAfterOf(err error) (time.Duration, bool) {
	var r *retryAfterError
	if errors.As(err, &r) {
		return r.after, true
	}
	return 0, false
}

// usageError carries the usage of calls that were billed although the
// inspection failed (a malformed answer, a refusal).
type usageError struct {
	usage Usage
	err   error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// WithUsage attaches the usage billed for a failed call to err, so that the
// runner counts it in the cost. WithUsage(nil, u) is nil.
func WithUsage(err error, u Usage) error {
	if err == nil {
		return nil
	}
	return &usageError{usage: u, err: err}
}

// UsageOf returns the usage attached to err by WithUsage.
func UsageOf(err error) (Usage, bool) {
	var u *usageError
	if errors.As(err, &u) {
		return u.usage, true
	}
	return Usage{}, false
}

// repeatKey is the context key of a call's repeat index.
type repeatKey struct{}

// WithRepeat returns ctx carrying the repeat index r (0-based) of the
// call: with --repeat K each run is inspected K times per side.
func WithRepeat(ctx context.Context, r int) context.Context {
	return context.WithValue(ctx, repeatKey{}, r)
}

// RepeatOf returns the repeat index carried by ctx (0 when none).
func RepeatOf(ctx context.Context) int {
	r, _ := ctx.Value(repeatKey{}).(int)
	return r
}
