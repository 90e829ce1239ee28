#!/usr/bin/env bash
# Prints SOURCE_DATE_EPOCH for a release build: the committer time of the last
# commit that changed anything but the action's checksum table
# (action/checksums.txt). The commit that pins a release's checksums therefore
# does not change the time stamped into its archives, which is what lets the
# sums be pinned before the tag (see scripts/release/pin.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
git log -1 --format=%ct -- . ':(exclude)action/checksums.txt'
