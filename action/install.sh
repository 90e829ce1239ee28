#!/usr/bin/env bash
# Installs rubricgate for the composite action (action.yml): bash on Linux and
# macOS, Git Bash on Windows. Prints path=<binary> to GITHUB_OUTPUT.
#
# At a release ref of the action (vX, vX.Y, vX.Y.Z matching the version in
# internal/version/version.go) it downloads the release archive for the
# runner's OS and architecture, verifies it against the SHA-256 pinned for
# that exact file name in the action (action/checksums.txt) BEFORE extracting
# or running anything, and keeps the binary in the runner's tool cache
# (RUNNER_TOOL_CACHE/rubricgate/<version>/<arch>), so a later step or job on
# the same runner does not download again. A missing pin or a mismatch is an
# error; there is no fallback.
#
# At any other ref (a branch, a commit SHA, `uses: ./`) it builds the binary
# from the action's own source with the Go on PATH, and says so.
#
# RUBRICGATE_DOWNLOAD_URL (step or job env) replaces the release download
# base, https://github.com/rubricgate/rubricgate/releases/download/v<version>
# (a mirror, or a test server): the archive's name is appended. The pinned
# checksum is the same whatever serves the file.
set -euo pipefail

log() { printf 'rubricgate install: %s\n' "$*"; }
die() { printf '::error title=rubricgate install::%s\n' "$*"; exit 1; }

action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (run this from action.yml)}
ref=${RUBRICGATE_ACTION_REF-}
unix() { if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi; }
action_path=$(unix "$action_path")
temp=$(unix "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")

version=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$action_path/internal/version/version.go")
[ -n "$version" ] || die "no const Version in $action_path/internal/version/version.go"

case "${RUNNER_OS-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) die "unsupported runner OS '${RUNNER_OS-}' (want Linux, macOS or Windows)" ;;
esac
case "${RUNNER_ARCH-}" in
  X64) arch=amd64 cache_arch=x64 ;;
  ARM64) arch=arm64 cache_arch=arm64 ;;
  *) die "unsupported runner architecture '${RUNNER_ARCH-}' (want X64 or ARM64)" ;;
esac
exe=rubricgate ext=tar.gz
if [ "$os" = windows ]; then exe=rubricgate.exe ext=zip; fi

release=
if [[ $ref =~ ^v[0-9]+(\.[0-9]+){0,2}$ ]]; then
  # v1 follows the newest v1.x.y; a tag names the version the action's source carries.
  case "$version." in
    "${ref#v}."*) release=1 ;;
    *) die "the action is at $ref but its source is version $version (internal/version/version.go): a release tag must match its version" ;;
  esac
fi

if [ -z "$release" ]; then
  log "the action runs at ${ref:-a local path} (not a release tag): building rubricgate $version from the action's source in $action_path"
  command -v go >/dev/null 2>&1 || die "building from source needs Go on PATH (actions/setup-go with go-version-file: go.mod), or use the action at a release tag"
  out="$temp/rubricgate-source/$cache_arch"
  mkdir -p "$out"
  (cd "$action_path" && CGO_ENABLED=0 go build -trimpath -o "$out/$exe" ./cmd/rubricgate) || die "go build in $action_path failed"
  bin="$out/$exe"
else
  archive=rubricgate_${version}_${os}_${arch}.$ext
  table="$action_path/action/checksums.txt"
  # Exactly one line whose name field is exactly the archive's, with a 64-digit sum.
  want=$(awk -v f="$archive" '$2 == f { n++; s = $1 } END { if (n == 1 && length(s) == 64 && s ~ /^[0-9a-f]+$/) print s; else exit 1 }' "$table") ||
    die "no single pinned SHA-256 for $archive in $table: this action version pins no such release"
  tool_cache=${RUNNER_TOOL_CACHE-}
  if [ -z "$tool_cache" ]; then
    tool_cache="$temp/rubricgate-tool-cache"
    log "RUNNER_TOOL_CACHE is not set: caching in $tool_cache (this job only)"
  fi
  dir="$(unix "$tool_cache")/rubricgate/$version/$cache_arch"
  bin="$dir/$exe"
  if [ -f "$dir.complete" ] && [ "$(cat "$dir.complete")" = "$want  $archive" ] && [ -x "$bin" ]; then
    log "rubricgate $version ($archive, sha256 $want) from the tool cache: $dir"
  else
    base=${RUBRICGATE_DOWNLOAD_URL:-https://github.com/rubricgate/rubricgate/releases/download/v$version}
    url="${base%/}/$archive"
    work=$(mktemp -d "$temp/rubricgate-install.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    log "downloading $url"
    curl --fail --silent --show-error --location --retry 3 --output "$work/$archive" "$url" || die "download of $url failed"
    if command -v sha256sum >/dev/null 2>&1; then
      got=$(sha256sum "$work/$archive")
    else
      got=$(shasum -a 256 "$work/$archive")
    fi
    got=${got%% *}
    got=${got#\\}
    if [ "$got" != "$want" ]; then
      die "checksum mismatch for $archive from $url: sha256 $got, the action pins $want; not installing it"
    fi
    log "verified $archive: sha256 $want (pinned in action/checksums.txt)"
    mkdir -p "$work/x"
    if [ "$ext" = zip ]; then
      if command -v unzip >/dev/null 2>&1; then
        unzip -q "$work/$archive" "$exe" -d "$work/x"
      else
        powershell -NoProfile -NonInteractive -Command "Expand-Archive -LiteralPath '$(cygpath -w "$work/$archive")' -DestinationPath '$(cygpath -w "$work/x")'"
      fi
    else
      tar -xzf "$work/$archive" -C "$work/x" "$exe"
    fi
    [ -f "$work/x/$exe" ] || die "$archive holds no $exe"
    rm -rf "$dir" "$dir.complete"
    mkdir -p "$dir"
    mv "$work/x/$exe" "$bin.tmp" && chmod 0755 "$bin.tmp" && mv "$bin.tmp" "$bin"
    printf '%s  %s\n' "$want" "$archive" > "$dir.complete"
    log "installed in the tool cache: $dir"
  fi
fi

log "$("$bin" version)"
printf 'path=%s\n' "$bin" >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
