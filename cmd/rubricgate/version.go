package main

import buildversion "github.com/rubricgate/rubricgate/internal/version"

// version is the version this binary reports (see internal/version).
func version() string { return buildversion.String() }
