// Package action holds the tests of the composite action's installer
// (install.sh) and of the release that feeds it: they run install.sh as the
// runner does, against a local release server, a tool cache and a
// RUNNER_TEMP in a temporary directory, and run the release workflow's
// checking steps (.github/workflows/release.yml) on a fake GoReleaser build.
// The package has no code of its own; the action is action.yml at the
// repository's root.
package action
