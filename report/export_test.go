package report

import (
	"testing"
)

// ValidateAgainstSchema validates a JSON document against the committed
// report schema.
func ValidateAgainstSchema(t *testing.T, b []byte) error {
	t.Helper()
	return compileSchema(t).Validate(instance(t, b))
}
