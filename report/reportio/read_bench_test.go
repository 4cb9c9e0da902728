package reportio

import (
	"os"
	"testing"
)

// BenchmarkParseReportYAML reads the synthetic report (25 KB, 14 runs).
func BenchmarkParseReportYAML(b *testing.B) {
	data, err := os.ReadFile(syntheticReport)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseReport(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateSchemaYAML(b *testing.B) {
	data, err := os.ReadFile(syntheticReport)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := decodeValue(data, false)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := validateSchema(doc); err != nil {
			b.Fatal(err)
		}
	}
}
