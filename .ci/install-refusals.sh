#!/usr/bin/env bash
# The action's installer (action/install.sh) refuses, before any download:
# a release tag that is not the source's version, an architecture it has no
# archive for, a checksum table without exactly one line whose name is
# exactly the archive's (none, a longer name such as an SBOM's, or two) or
# the binary's in it (<archive>/rubricgate), and a job without RUNNER_TEMP
# (no fallback to a shared /tmp). action/install_test.go covers the rest
# (the tool cache, a planted binary, mismatched downloads).
# Runs install.sh directly on a scratch clone; no network (the download URL
# is a closed port, which none of these cases may reach).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
S=$(mktemp -d /tmp/rubricgate-install-refusals.XXXXXX)
trap 'rm -rf "$S"' EXIT
git clone -q "$SRC" "$S/a" || exit 1
mkdir -p "$S/t"
version=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$SRC/internal/version/version.go")
name=rubricgate_${version}_linux_amd64.tar.gz
sum_a=$(printf 'a%.0s' $(seq 64)) sum_b=$(printf 'b%.0s' $(seq 64))
fail=0
# case LABEL WANT-IN-OUTPUT TABLE-LINES [VAR=VALUE...]
case_() {
  local label=$1 want=$2 table=$3 out rc; shift 3
  sed -n '/^#/p' "$SRC/action/checksums.txt" > "$S/a/action/checksums.txt"
  printf '%b' "$table" >> "$S/a/action/checksums.txt"
  out=$(env -i PATH="$PATH" HOME="$S" GITHUB_ACTION_PATH="$S/a" RUNNER_TEMP="$S/t" RUNNER_TOOL_CACHE="$S/tc" \
    RUNNER_OS=Linux RUNNER_ARCH=X64 GITHUB_OUTPUT="$S/out" RUBRICGATE_DOWNLOAD_URL=http://127.0.0.1:9 \
    RUBRICGATE_ACTION_REF=v${version%%.*} "$@" bash "$S/a/action/install.sh" 2>&1); rc=$?
  if [ "$rc" != 0 ] && [[ $out == *"$want"* ]] && [[ $out != *downloading* ]] && [ ! -s "$S/out" ]; then
    echo "ok   $label"
  else
    echo "FAIL $label (exit $rc): $out"; fail=1
  fi
}
case_ "tag v$((${version%%.*} + 1)) is not version $version" "a release tag must match its version" "" RUBRICGATE_ACTION_REF=v$((${version%%.*} + 1))
case_ "tag v${version%%.*}.99 is not version $version" "a release tag must match its version" "" RUBRICGATE_ACTION_REF=v${version%%.*}.99
case_ "no archive for ARM" "unsupported runner architecture 'ARM'" "$sum_a  $name\n" RUNNER_ARCH=ARM
case_ "no pinned line" "no single pinned SHA-256 for $name" ""
case_ "only a longer name (an SBOM's)" "no single pinned SHA-256 for $name" "$sum_a  $name.sbom.json\n"
case_ "two lines for the name" "no single pinned SHA-256 for $name" "$sum_a  $name\n$sum_b  $name\n"
case_ "a short sum" "no single pinned SHA-256 for $name" "abc123  $name\n"
case_ "no pin for the binary in the archive" "no single pinned SHA-256 for $name/rubricgate" "$sum_a  $name\n"
case_ "two pins for the binary" "no single pinned SHA-256 for $name/rubricgate" "$sum_a  $name\n$sum_a  $name/rubricgate\n$sum_b  $name/rubricgate\n"
case_ "no RUNNER_TEMP (no fallback to /tmp)" "RUNNER_TEMP is not set" "$sum_a  $name\n$sum_b  $name/rubricgate\n" RUNNER_TEMP=
exit $fail
