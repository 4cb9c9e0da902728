// Package archtest holds no code: its test checks the dependency rules of
// docs/DESIGN.md on the source tree, so that they cannot erode unnoticed.
package archtest
