// Package english writes counts the way a reader expects: "1 run", "3
// runs", never "1 runs" or "3 run(s)" (issue 28).
package english

import "strconv"

// Count is n and the noun's form for n: Count(1, "run", "runs") is
// "1 run", Count(0, "run", "runs") is "0 runs".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}

// Noun is the noun's form for n alone: one when n is 1, else many.
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
