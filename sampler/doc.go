// Package sampler discovers OpenProse run directories, validates and
// describes them, and picks a diverse subset for calibration. The run
// descriptor it fills (inspection.Run, its statuses and eras) is package
// inspection's.
package sampler
