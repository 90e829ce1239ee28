// Package action holds the tests of the composite action's installer
// (install.sh): they run the script as the runner does, against a local
// release server, a tool cache and a RUNNER_TEMP in a temporary directory.
// The package has no code of its own; the action is action.yml at the
// repository's root.
package action
