package reportenc

import (
	"math"
	"strconv"
)

// appendYAMLFloat writes x as yaml.v3 writes a float (strconv 'g', shortest,
// at the value's own bit size).
func appendYAMLFloat(b []byte, x float64, bitSize int) []byte {
	switch {
	case math.IsInf(x, 1):
		return append(b, ".inf"...)
	case math.IsInf(x, -1):
		return append(b, "-.inf"...)
	case math.IsNaN(x):
		return append(b, ".nan"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, bitSize)
}

// appendJSONFloat writes a finite x as encoding/json writes a float: like
// ES6's number to string, 'f' between 1e-6 and 1e21, else 'e' with the
// exponent unpadded.
func appendJSONFloat(b []byte, x float64, bitSize int) []byte {
	abs := math.Abs(x)
	format := byte('f')
	if abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) || bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	start := len(b)
	b = strconv.AppendFloat(b, x, format, -1, bitSize)
	if format == 'e' {
		n := len(b)
		if n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendPValue writes x, already rounded to 3 significant digits, as
// d.dde±XX (valid in YAML and JSON alike).
func appendPValue(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, x, 'e', 2, 64)
}
