package runner

import (
	"context"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// Transitional alias: the domain types moved to package inspection; these
// names serve runner's own files until they say inspection.X; no other
// package uses them (internal/archtest checks it).
type (
	Depth        = inspection.Depth
	Inspection   = inspection.Inspection
	Service      = inspection.Service
	Flag         = inspection.Flag
	Cost         = inspection.Cost
	Usage        = inspection.Usage
	Failure      = inspection.Failure
	Inspector    = inspection.Inspector
	Billed       = inspection.Billed
	RunBound     = inspection.RunBound
	FieldError   = inspection.FieldError
	Unattributed = inspection.Unattributed
)

// Transitional alias: see the type aliases above.
const (
	Light              = inspection.Light
	Deep               = inspection.Deep
	VerdictFail        = inspection.VerdictFail
	VerdictPartial     = inspection.VerdictPartial
	VerdictPass        = inspection.VerdictPass
	FailBelow          = inspection.FailBelow
	PassAt             = inspection.PassAt
	SeverityInfo       = inspection.SeverityInfo
	SeverityWarning    = inspection.SeverityWarning
	SeverityCritical   = inspection.SeverityCritical
	FlagInputTruncated = inspection.FlagInputTruncated
)

// Transitional alias: inspection.Permanent.
func Permanent(err error) error { return inspection.Permanent(err) }

// Transitional alias: inspection.IsPermanent.
func IsPermanent(err error) bool { return inspection.IsPermanent(err) }

// Transitional alias: inspection.Fatal.
func Fatal(err error) error { return inspection.Fatal(err) }

// Transitional alias: inspection.IsFatal.
func IsFatal(err error) bool { return inspection.IsFatal(err) }

// Transitional alias: inspection.RetryAfter.
func RetryAfter(err error, d time.Duration) error { return inspection.RetryAfter(err, d) }

// Transitional alias: inspection.RetryAfterOf.
func RetryAfterOf(err error) (time.Duration, bool) { return inspection.RetryAfterOf(err) }

// Transitional alias: inspection.WithUsage.
func WithUsage(err error, u Usage) error { return inspection.WithUsage(err, u) }

// Transitional alias: inspection.UsageOf.
func UsageOf(err error) (Usage, bool) { return inspection.UsageOf(err) }

// Transitional alias: inspection.WithRepeat.
func WithRepeat(ctx context.Context, r int) context.Context { return inspection.WithRepeat(ctx, r) }

// Transitional alias: inspection.RepeatOf.
func RepeatOf(ctx context.Context) int { return inspection.RepeatOf(ctx) }

// Transitional alias: inspection.ParseInspection.
func ParseInspection(data []byte) (Inspection, error) { return inspection.ParseInspection(data) }

// Transitional alias: inspection.CheckInspection.
func CheckInspection(insp Inspection) error { return inspection.CheckInspection(insp) }

// Transitional alias: inspection.Consolidate.
func Consolidate(repeats []Inspection) Inspection { return inspection.Consolidate(repeats) }
