// Command rubricgate is a CI regression gate for LLM outputs: it scores an
// eval run against a versioned rubric, compares it with the last passing
// baseline, and blocks on a relative drop or a blocking-criterion failure.
//
// Exit status: 0 pass, 1 blocked, 2 error, 3 re-run asked (noisy-drop rerun).
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
}
