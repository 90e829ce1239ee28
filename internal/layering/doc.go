// Package layering holds no code: its test checks the import rules of the
// module's layering (CONTRIBUTING.md's package map), so a change that
// imports upward fails go test.
package layering
