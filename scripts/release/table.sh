#!/usr/bin/env bash
# Usage: scripts/release/table.sh VERSION CHECKSUMS
# Prints the action's checksum table (action/checksums.txt) for VERSION from
# GoReleaser's checksums file and the archives beside it: for each of the six
# archives, in name order, the archive's SHA-256 line and the line of the
# binary inside it (name <archive>/rubricgate, <archive>/rubricgate.exe),
# which action/install.sh checks every copy it runs against. Nothing else
# (an SBOM or signature line is not an archive the action installs). Fails
# unless all six archives are listed, present, hash to their line, and hold
# their binary.
set -euo pipefail
version=$1 sums=$2
dir=$(dirname "$sums")
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -d' ' -f1; else shasum -a 256 | cut -d' ' -f1; fi; }
echo "# SHA-256 of the rubricgate $version release archives and of the binary in"
echo "# each (<archive>/<binary>), pinned in the action. action/install.sh verifies a"
echo "# download against its archive's line and every binary it runs against the"
echo "# binary's line. Written by scripts/release/pin.sh; the release workflow"
echo "# publishes only archives that have exactly these sums."
for os in darwin linux windows; do
  for arch in amd64 arm64; do
    ext=tar.gz exe=rubricgate
    [ "$os" = windows ] && ext=zip exe=rubricgate.exe
    name=rubricgate_${version}_${os}_${arch}.$ext
    line=$(awk -v f="$name" '$2 == f && length($1) == 64 && $1 ~ /^[0-9a-f]+$/ { print $1 "  " $2; n++ } END { exit n == 1 ? 0 : 1 }' "$sums") ||
      { echo "table.sh: $sums has no single SHA-256 line for $name" >&2; exit 1; }
    [ -f "$dir/$name" ] || { echo "table.sh: no $dir/$name" >&2; exit 1; }
    got=$(sha256 < "$dir/$name")
    [ "$got  $name" = "$line" ] || { echo "table.sh: $dir/$name has sha256 $got, not the one in $sums" >&2; exit 1; }
    if [ "$ext" = zip ]; then
      [ "$(unzip -Z1 "$dir/$name" | grep -cx "$exe")" = 1 ] || { echo "table.sh: $name holds no single $exe" >&2; exit 1; }
      bin=$(unzip -p "$dir/$name" "$exe" | sha256)
    else
      [ "$(tar -tzf "$dir/$name" | grep -cx "$exe")" = 1 ] || { echo "table.sh: $name holds no single $exe" >&2; exit 1; }
      bin=$(tar -xzOf "$dir/$name" "$exe" | sha256)
    fi
    echo "$line"
    echo "$bin  $name/$exe"
  done
done
