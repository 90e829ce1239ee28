#!/usr/bin/env bash
# Installs rubricgate for the composite action (action.yml): bash on Linux and
# macOS, Git Bash on Windows. Prints path=<binary> to GITHUB_OUTPUT.
#
# At a release ref of the action (vX, vX.Y, vX.Y.Z matching the version in
# internal/version/version.go) the action pins two SHA-256 sums per runner
# platform in action/checksums.txt: the release archive's
# (rubricgate_<version>_<os>_<arch>.tar.gz, .zip on Windows) and the binary's
# inside it (<archive>/rubricgate, <archive>/rubricgate.exe). What runs is
# verified every time: the binary this step hands to the gate step is a fresh
# copy in a directory only this user can enter (mktemp -d under RUNNER_TEMP),
# whose SHA-256 was checked against the binary's pin after it was copied,
# whether it came from the tool cache or from a download. A download is
# checked against the archive's pin BEFORE it is extracted. A missing pin or
# a mismatched download is an error; there is no fallback.
#
# The tool cache (RUNNER_TOOL_CACHE/rubricgate/<version>/<arch>) only saves
# the download for a later step or job on the runner. It is used only when
# it, every directory above it and rubricgate's directories and binary in it
# are owned by this user or root and writable by no group or other user (a
# directory above it may be world-writable with the sticky bit, as /), with
# no symbolic link; otherwise the step downloads and verifies without it
# (warned when rubricgate's own files are the problem). A cached binary with
# another sum is never run: the verified download replaces it, warned.
# RUNNER_TEMP must pass the same check (else the step fails), and without it
# the step fails: it never falls back to a shared /tmp.
#
# At any other ref (a branch, a commit SHA, `uses: ./`) it builds the binary
# from the action's own source with the Go on PATH, and says so.
#
# RUBRICGATE_DOWNLOAD_URL (step or job env) replaces the release download
# base, https://github.com/rubricgate/rubricgate/releases/download/v<version>
# (a mirror, or a test server): the archive's name is appended. The pinned
# checksums are the same whatever serves the file.
set -euo pipefail
umask 022

log() { printf 'rubricgate install: %s\n' "$*"; }
die() { printf '::error title=rubricgate install::%s\n' "$*"; exit 1; }
warn() { printf '::warning title=rubricgate install::%s\n' "$*"; }

action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (run this from action.yml)}
ref=${RUBRICGATE_ACTION_REF-}
unix() { if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi; }
action_path=$(unix "$action_path")
[ -n "${RUNNER_TEMP-}" ] || die "RUNNER_TEMP is not set (the runner sets it for every job; the installer does not fall back to a shared /tmp)"
temp=$(unix "$RUNNER_TEMP")
[ -d "$temp" ] || die "RUNNER_TEMP ($temp) is not a directory"

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

# owner_mode PATH: "<uid> <octal mode>" of PATH itself (a link is not followed).
owner_mode() { stat -c '%u %a' -- "$1" 2>/dev/null || stat -f '%u %Mp%Lp' -- "$1"; }
me=$(id -u)
# private PATH STICKY-OK: succeeds when PATH is no symbolic link, is owned by
# this user or root, and no group or other user can write it (STICKY-OK 1:
# or it is a directory with the sticky bit, where nobody else can rename or
# replace this user's entries, as / or /tmp); else prints why another local
# user could replace PATH or what is in it, and fails. Anything unexpected
# fails too. Windows (NTFS ACLs, no POSIX owner and mode) is not checked.
private() {
  if [ "$os" = windows ]; then return 0; fi
  local m uid mode
  if [ -L "$1" ]; then echo "$1 is a symbolic link"; return 1; fi
  m=$(owner_mode "$1") || { echo "cannot read the owner and mode of $1"; return 1; }
  uid=${m%% *} mode=${m#* }
  if ! [[ $uid =~ ^[0-9]+$ && $mode =~ ^[0-7]{3,4}$ ]]; then echo "cannot read the owner and mode of $1 ($m)"; return 1; fi
  if [ "$uid" != "$me" ] && [ "$uid" != 0 ]; then
    echo "$1 is owned by uid $uid, not by this job's user (uid $me) or root"; return 1
  fi
  if (( 8#$mode & 8#022 )) && ! { [ "$2" = 1 ] && (( 8#$mode & 8#1000 )); }; then
    echo "$1 is writable by its group or by other users (mode $mode)"; return 1
  fi
  return 0
}
# private_tree DIR: private for DIR (resolved: no links) and every directory
# above it (those with STICKY-OK).
private_tree() {
  local p
  p=$(cd -P -- "$1" 2>/dev/null && pwd -P) || { echo "cannot resolve $1"; return 1; }
  private "$p" 0 || return 1
  while [ "$p" != / ]; do
    p=$(dirname -- "$p")
    private "$p" 1 || return 1
  done
  return 0
}
sha256() {
  local s
  if command -v sha256sum >/dev/null 2>&1; then s=$(sha256sum -- "$1"); else s=$(shasum -a 256 -- "$1"); fi
  s=${s%% *}
  printf '%s\n' "${s#\\}"
}

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
  out=$(mktemp -d "$temp/rubricgate-source.XXXXXX") || die "cannot make a directory in RUNNER_TEMP ($temp)"
  (cd "$action_path" && CGO_ENABLED=0 go build -trimpath -o "$out/$exe" ./cmd/rubricgate) || die "go build in $action_path failed"
  bin="$out/$exe"
else
  archive=rubricgate_${version}_${os}_${arch}.$ext
  table="$action_path/action/checksums.txt"
  # pinned NAME: the sum on the one line whose name field is exactly NAME.
  pinned() { awk -v f="$1" '$2 == f { n++; s = $1 } END { if (n == 1 && length(s) == 64 && s ~ /^[0-9a-f]+$/) print s; else exit 1 }' "$table"; }
  want=$(pinned "$archive") ||
    die "no single pinned SHA-256 for $archive in $table: this action version pins no such release"
  want_bin=$(pinned "$archive/$exe") ||
    die "no single pinned SHA-256 for $archive/$exe (the binary in the archive) in $table: this action version pins no such release"

  # The copy that runs: a fresh directory only this user can enter, in a
  # RUNNER_TEMP nobody else can rename it in.
  if ! why=$(private_tree "$temp"); then
    die "RUNNER_TEMP: $why, so another user could swap the verified rubricgate binary before it runs; not installing (chmod go-w, or run the runner as the owner)"
  fi
  run_dir=$(mktemp -d "$temp/rubricgate-bin.XXXXXX") || die "cannot make a directory in RUNNER_TEMP ($temp)"
  bin="$run_dir/$exe"
  # copy_verified SRC: copy SRC to $bin and check the copy against the pin.
  copy_verified() {
    rm -f -- "$bin"
    if ! { cp -- "$1" "$bin" && chmod 0755 "$bin"; }; then die "cannot copy $1 to $bin"; fi
    got_bin=$(sha256 "$bin")
    [ "$got_bin" = "$want_bin" ]
  }

  # The tool cache, where a later step or job finds the binary: used only
  # where no other user can write (else every step downloads and verifies).
  dir=
  if [ -z "${RUNNER_TOOL_CACHE-}" ]; then
    log "RUNNER_TOOL_CACHE is not set: not caching (this step downloads into $run_dir)"
  else
    tool_cache=$(unix "$RUNNER_TOOL_CACHE")
    mkdir -p -- "$tool_cache" 2>/dev/null || true
    if ! why=$(private_tree "$tool_cache"); then
      # GitHub's hosted Ubuntu image makes its tool cache mode 0777.
      log "not caching in the tool cache: $why (other users could write it); this step downloads into $run_dir"
    else
      root=$(cd -P -- "$tool_cache" && pwd -P)
      dir=$root
      n=0
      for path in rubricgate "rubricgate/$version" "rubricgate/$version/$cache_arch" "rubricgate/$version/$cache_arch/$exe"; do
        dir="$root/$path" n=$((n + 1))
        # The three directories are made when missing; the binary is not.
        if [ "$n" -lt 4 ] && [ ! -e "$dir" ] && [ ! -L "$dir" ]; then mkdir -- "$dir" 2>/dev/null || true; fi
        if { [ -e "$dir" ] || [ -L "$dir" ]; } && ! why=$(private "$dir" 0); then
          warn "the tool cache holds rubricgate's files where another user could have written them: $why. Not reading or writing the cache; this step downloads into $run_dir (remove $root/rubricgate to cache again)"
          dir=
          break
        fi
      done
      [ -z "$dir" ] || dir="$root/rubricgate/$version/$cache_arch"
      if [ -n "$dir" ] && [ ! -d "$dir" ]; then
        warn "$dir is not a directory (or could not be made): not caching"
        dir=
      fi
    fi
  fi

  hit=
  if [ -n "$dir" ] && { [ -e "$dir/$exe" ] || [ -L "$dir/$exe" ]; }; then
    if [ ! -f "$dir/$exe" ]; then
      warn "$dir/$exe is not a regular file: not caching"
      dir=
    elif copy_verified "$dir/$exe"; then
      hit=1
      log "rubricgate $version ($archive/$exe, sha256 $want_bin) from the tool cache: $dir, checked again as copied to $run_dir"
    else
      warn "the tool cache holds a rubricgate $version binary whose SHA-256 is $got_bin, not the $want_bin the action pins ($dir/$exe): not running it; replacing it with the verified release archive's"
      rm -f -- "$bin" "$dir/$exe" || die "cannot remove $dir/$exe"
    fi
  fi

  if [ -z "$hit" ]; then
    base=${RUBRICGATE_DOWNLOAD_URL:-https://github.com/rubricgate/rubricgate/releases/download/v$version}
    url="${base%/}/$archive"
    work=$(mktemp -d "$temp/rubricgate-install.XXXXXX") || die "cannot make a directory in RUNNER_TEMP ($temp)"
    trap 'rm -rf "$work"' EXIT
    log "downloading $url"
    curl --fail --silent --show-error --location --retry 3 --output "$work/$archive" "$url" || die "download of $url failed"
    got=$(sha256 "$work/$archive")
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
    if [ ! -f "$work/x/$exe" ] || [ -L "$work/x/$exe" ]; then die "$archive holds no $exe"; fi
    copy_verified "$work/x/$exe" ||
      die "$archive holds a $exe whose SHA-256 is $got_bin, the action pins $want_bin for it; not running it"
    log "verified $archive/$exe: sha256 $want_bin (pinned in action/checksums.txt)"
    if [ -n "$dir" ]; then
      tmp="$dir/.$exe.$$.tmp"
      if cp -- "$bin" "$tmp" && chmod 0755 "$tmp" && mv -f -- "$tmp" "$dir/$exe"; then
        log "installed in the tool cache: $dir"
      else
        rm -f -- "$tmp"
        warn "cannot write $dir/$exe: not cached"
      fi
    fi
  fi
fi

log "$("$bin" version)"
printf 'path=%s\n' "$bin" >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
