// Package archtest holds no code: its test checks the dependency rules of
// DESIGN.md on the source tree, so that they cannot erode unnoticed.
package archtest
