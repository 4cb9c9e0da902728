// Package testutil holds the scaffolding that tests of several packages
// share: golden files with one -update flag, run directories written from
// a map of files, heap and CPU probes. It is imported by _test.go files
// only.
package testutil
