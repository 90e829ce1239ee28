#!/usr/bin/env bash
# Pins the SHA-256 of the next release's archives in the action.
#
# Usage: scripts/release/pin.sh [GORELEASER]   (default: goreleaser on PATH)
#
# Builds the release of the version in internal/version/version.go as a
# GoReleaser snapshot (reproducible: see .goreleaser.yaml) into dist/, and
# writes its archives' sums to action/checksums.txt, the table the action
# (action/install.sh) verifies a download against before it runs anything.
# Commit the table, tag that commit vX.Y.Z and push the tag: the release
# workflow rebuilds at the tag and refuses to publish unless its checksums
# file lists exactly these sums.
set -euo pipefail
cd "$(dirname "$0")/../.."
goreleaser=${1:-goreleaser}
version=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' internal/version/version.go)
[ -n "$version" ] || { echo "pin.sh: no const Version in internal/version/version.go" >&2; exit 2; }
if [ -n "$(git status --porcelain -- . ':(exclude)action/checksums.txt')" ]; then
  echo "pin.sh: the work tree has changes; commit them first (the release is built from commits)" >&2
  exit 2
fi
SOURCE_DATE_EPOCH=$(scripts/release/epoch.sh)
export SOURCE_DATE_EPOCH RUBRICGATE_SNAPSHOT_VERSION=$version
"$goreleaser" release --snapshot --clean --skip=docker
sums=dist/rubricgate_${version}_checksums.txt
scripts/release/table.sh "$version" "$sums" > action/checksums.txt
cat action/checksums.txt
echo "pinned rubricgate $version in action/checksums.txt: commit it, then tag v$version"
