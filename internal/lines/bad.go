package lines

// BadLine is an input line (or database row) that could not be used:
// its file, its line (1-based), the field at fault ("" when the line as a
// whole is) and why. Bad lines are reported, never fatal.
type BadLine struct {
	File  string `yaml:"file" json:"file"`
	Line  int    `yaml:"line" json:"line"`
	Field string `yaml:"field" json:"field"`
	Error string `yaml:"error" json:"error"`
}

// BadLines counts the input lines that were not used and lists them (up
// to a cap; Count is the total).
type BadLines struct {
	Count int       `yaml:"count" json:"count"`
	Lines []BadLine `yaml:"lines" json:"lines"`
}
