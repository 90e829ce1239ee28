package main

import "errors"

// cmdCalibrate measures judge-human or reviewer-reviewer agreement.
func cmdCalibrate(args []string, e *env) (int, error) {
	return exitError, errors.New("calibrate: not wired yet")
}
