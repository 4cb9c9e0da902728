package saved

import (
	"context"

	"github.com/evalcal/evalcal/inspection"
)

// LoadRereading is Load of a regular file of any size as one of
// RereadBytes or more: its lines are read again by offset (lineref.go).
func LoadRereading(path string) (*Inspector, []inspection.Run, error) {
	lim := defaultLimits
	lim.reread = 0
	return load(context.Background(), path, lim, selection{})
}
