#!/usr/bin/env bash
# Usage: scripts/release/table.sh VERSION CHECKSUMS
# Prints the action's checksum table (action/checksums.txt) for VERSION from
# GoReleaser's checksums file: the six archives' lines, in name order, and
# nothing else (an SBOM or signature line is not an archive the action
# installs). Fails unless all six are there.
set -euo pipefail
version=$1 sums=$2
echo "# SHA-256 of the rubricgate $version release archives, pinned in the action."
echo "# action/install.sh verifies a download against the line whose name is exactly"
echo "# the archive's. Written by scripts/release/pin.sh; the release workflow checks"
echo "# that the release it publishes has exactly these sums."
n=0
for os in darwin linux windows; do
  for arch in amd64 arm64; do
    ext=tar.gz; [ "$os" = windows ] && ext=zip
    name=rubricgate_${version}_${os}_${arch}.$ext
    line=$(awk -v f="$name" '$2 == f && length($1) == 64 && $1 ~ /^[0-9a-f]+$/ { print $1 "  " $2; n++ } END { exit n == 1 ? 0 : 1 }' "$sums") ||
      { echo "table.sh: $sums has no single SHA-256 line for $name" >&2; exit 1; }
    echo "$line"
    n=$((n + 1))
  done
done
