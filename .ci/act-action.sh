#!/usr/bin/env bash
# Runs the composite action (action.yml) under nektos/act, offline, the way a
# user's workflow runs it: `uses: rubricgate/rubricgate@v1` (act's
# --local-repository maps it to a scratch copy of this checkout, so the action
# sees the release ref v1), self-hosted job, release archives from a GoReleaser
# snapshot served on 127.0.0.1.
#
# Usage: .ci/act-action.sh GORELEASER ACT SCRATCH
#
# Test hook: the snapshot's sums are pinned by rewriting action/checksums.txt
# in the scratch copy of the action (scripts/release/table.sh, as
# scripts/release/pin.sh does before a release). The action itself has no
# switch that loosens the check; the download location is the documented
# RUBRICGATE_DOWNLOAD_URL.
#
# Checks: the pass example exits 0 and the regressed one 1, outputs read by a
# later step, the job summary (from act's log: act empties the file between
# steps), the report path the output names exists, a second gate step in the
# job takes the binary from the tool cache, a tampered archive fails the
# install (and nothing runs), a binary planted in the tool cache beside the
# marker file earlier installers trusted does not run (the verified release
# replaces it), `uses: ./` builds from source and says so.
# Prints the action's start (job start to the gate's first line) per job.
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 GORELEASER ACT SCRATCH" >&2; exit 2; }
GORELEASER=$1 ACT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$3" && mkdir -p "$3" && S=$(cd "$3" && pwd) || exit 2
OUT=$S/out
mkdir -p "$OUT"
log() { printf '\n-- %s\n' "$*"; }
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
g() { grep -q -- "$2" "$OUT/$1" 2>/dev/null; }

version=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$SRC/internal/version/version.go")
major=${version%%.*}

log "snapshot release of $version (goreleaser check, release --snapshot)"
git clone -q "$SRC" "$S/build" || exit 1
(
  cd "$S/build" || exit 1
  # REUSE_DIST=DIR (a dist/ of an earlier run of this script) skips the build
  # when iterating on the act part; .ci/run never sets it.
  if [ -n "${REUSE_DIST-}" ]; then "$GORELEASER" check && cp -a "$REUSE_DIST" dist; exit; fi
  "$GORELEASER" check || exit 1
  export SOURCE_DATE_EPOCH RUBRICGATE_SNAPSHOT_VERSION=$version
  SOURCE_DATE_EPOCH=$(scripts/release/epoch.sh)
  s=$(date +%s)
  "$GORELEASER" release --snapshot --clean --skip=docker > "$OUT/goreleaser.log" 2>&1 || { tail -30 "$OUT/goreleaser.log"; exit 1; }
  echo "snapshot built in $(( $(date +%s) - s )) s"
) || exit 1
DIST=$S/build/dist
SUMS=$DIST/rubricgate_${version}_checksums.txt
ls -l "$DIST"/*.tar.gz "$DIST"/*.zip "$SUMS" | awk '{print $5, $NF}'

log "scratch copy of the action with the snapshot's sums pinned"
git clone -q "$SRC" "$S/action" || exit 1
"$S/build/scripts/release/table.sh" "$version" "$SUMS" > "$S/action/action/checksums.txt" || exit 1
cat "$S/action/action/checksums.txt"

# A server whose linux/amd64 archive is another file with the same name.
mkdir -p "$S/bad"
cp "$DIST"/*.tar.gz "$DIST"/*.zip "$S/bad/"
cp "$DIST/rubricgate_${version}_linux_arm64.tar.gz" "$S/bad/rubricgate_${version}_linux_amd64.tar.gz"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GOOD_PORT=$(port) BAD_PORT=$(port)
python3 -m http.server --bind 127.0.0.1 --directory "$DIST" "$GOOD_PORT" > "$OUT/http-good.log" 2>&1 &
GOOD_PID=$!
python3 -m http.server --bind 127.0.0.1 --directory "$S/bad" "$BAD_PORT" > "$OUT/http-bad.log" 2>&1 &
BAD_PID=$!
trap 'kill "$GOOD_PID" "$BAD_PID" 2>/dev/null' EXIT
for p in "$GOOD_PORT" "$BAD_PORT"; do
  for _ in $(seq 50); do curl -fsS -o /dev/null "http://127.0.0.1:$p/" 2>/dev/null && break; sleep 0.1; done
done

log "workspace repository with the workflow"
git clone -q "$SRC" "$S/repo" || exit 1
cd "$S/repo" || exit 1
git remote set-url origin https://github.com/o/r.git     # act derives github.repository from it
git checkout -qb pr-head
mkdir -p .github/workflows
gate_step() { # id uses results [env block]
  # A pull request's run may not read a baseline its checkout tracks (the
  # change request could have written it): the job copies the example's
  # out of the checkout first, as a real job would fetch it.
  cat <<YAML
      - name: Baseline for $1, outside the checkout
        shell: bash
        run: cp examples/support/baseline.json "\$RUNNER_TEMP/baseline.json"
      - name: Gate $1
        id: $1
        uses: $2
        with:
          rubric: rubrics/support.yaml
          results: $3
          baseline: \${{ runner.temp }}/baseline.json
          markdown: rubricgate.md
YAML
}
read_step() { # id
  cat <<YAML
      - name: Read the outputs of $1
        if: always()
        env:
          DECISION: \${{ steps.$1.outputs.decision }}
          PASSED: \${{ steps.$1.outputs.passed }}
          SCORE: \${{ steps.$1.outputs.score }}
          BASELINE_SCORE: \${{ steps.$1.outputs.baseline-score }}
          CHANGE: \${{ steps.$1.outputs.relative-change }}
          BLOCKING: \${{ steps.$1.outputs.blocking-failures }}
          REPORT: \${{ steps.$1.outputs.report }}
          OUTCOME: \${{ steps.$1.outcome }}
        run: |
          {
            echo "step=$1 outcome=\$OUTCOME"
            echo "decision=\$DECISION passed=\$PASSED score=\$SCORE baseline-score=\$BASELINE_SCORE relative-change=\$CHANGE blocking-failures=\$BLOCKING"
            echo "report=\$REPORT"
            if [ -n "\$REPORT" ] && [ -s "\$REPORT" ]; then echo "report-exists=yes"; else echo "report-exists=NO"; fi
            case "\$REPORT" in "\$RUNNER_TEMP"/*) echo "report-under-runner-temp=yes";; esac
            [ -s rubricgate.md ] && echo "workspace-file rubricgate.md"
            true
          } | tee -a "\$RG_ACT_OUT/\$GITHUB_JOB.checks"
YAML
}
plant_step() { # a binary in the tool cache beside the marker file earlier installers trusted
  local archive=rubricgate_${version}_linux_amd64.tar.gz
  cat <<YAML
      - name: Plant a binary in the tool cache
        shell: bash
        run: |
          d="\$RUNNER_TOOL_CACHE/rubricgate/$version/x64"
          mkdir -p "\$d"
          printf '#!/bin/sh\\necho ran >> "$OUT/planted-ran"\\necho "rubricgate $version"\\n' > "\$d/rubricgate"
          chmod 0755 "\$d/rubricgate"
          echo "$(awk -v f="$archive" '$2 == f { print $1 }' "$S/action/action/checksums.txt")  $archive" > "\$d.complete"
YAML
}
job() { # name [env url]
  printf '  %s:\n    runs-on: ubuntu-latest\n' "$1"
  [ -n "${2-}" ] && printf '    env:\n      RUBRICGATE_DOWNLOAD_URL: %s\n' "$2"
  printf '    steps:\n      - uses: actions/checkout@v4      # act copies the local tree instead\n'
}
{
  printf 'name: rubricgate-act\non:\n  pull_request:\n    types: [opened, synchronize]\n'
  printf 'permissions:\n  contents: read\n  actions: read\n  pull-requests: write\njobs:\n'
  job gate-pass "http://127.0.0.1:$GOOD_PORT"
  gate_step gate rubricgate/rubricgate@v$major examples/support/run.jsonl
  read_step gate
  gate_step again rubricgate/rubricgate@v$major examples/support/run.jsonl
  read_step again
  job gate-regressed "http://127.0.0.1:$GOOD_PORT"
  gate_step gate rubricgate/rubricgate@v$major examples/support/run-regressed.jsonl
  read_step gate
  job gate-mismatch "http://127.0.0.1:$BAD_PORT"
  gate_step gate rubricgate/rubricgate@v$major examples/support/run.jsonl
  read_step gate
  job gate-planted "http://127.0.0.1:$GOOD_PORT"
  plant_step
  gate_step gate rubricgate/rubricgate@v$major examples/support/run.jsonl
  read_step gate
  job gate-source
  gate_step gate ./ examples/support/run.jsonl
  read_step gate
} > .github/workflows/gate.yml
cat > "$S/event.json" <<'JSON'
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "state": "open", "labels": [],
   "head": {"ref": "pr-head", "sha": "1111111111111111111111111111111111111111", "repo": {"full_name": "o/r", "fork": false}},
   "base": {"ref": "main", "sha": "2222222222222222222222222222222222222222", "repo": {"full_name": "o/r", "default_branch": "main"}}},
 "repository": {"id": 1, "name": "r", "full_name": "o/r", "owner": {"login": "o"}, "default_branch": "main", "fork": false},
 "sender": {"login": "o"}}
JSON
git add -A && git -c user.email=act@example.invalid -c user.name=act commit -qm "act workflow" || exit 1

run() { # job: its own act cache (so its own, empty, tool cache)
  local rc
  s=$(date +%s.%N)
  timeout 900 "$ACT" pull_request -j "$1" -P ubuntu-latest=-self-hosted -e "$S/event.json" --pull=false \
    --no-cache-server --action-cache-path "$S/actcache-$1" \
    --local-repository "rubricgate/rubricgate@v$major=$S/action" --env "RG_ACT_OUT=$OUT" 2>&1 |
    while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done > "$OUT/$1.log"
  rc=${PIPESTATUS[0]}
  echo "$rc" > "$OUT/$1.rc"
  # the action's start: the job's first line to the gate's first line
  start=$(awk '/Run Set up job/ { print $1; exit }' "$OUT/$1.log")
  step=$(awk '/Run Main Gate gate/ { print $1; exit }' "$OUT/$1.log")
  first=$(awk '/rubricgate: (PASS|BLOCK)/ { print $1; exit }' "$OUT/$1.log")  # the line may be coloured
  since() { if [ -n "$1" ] && [ -n "$first" ]; then awk -v a="$1" -v b="$first" 'BEGIN { printf "%.2f", b - a }'; else echo -; fi; }
  printf '%-15s act exit %s; to the gate'"'"'s first line: from job start %s s, from the action step'"'"'s start %s s\n' \
    "$1" "$rc" "$(since "$start")" "$(since "$step")" | tee -a "$OUT/timings"
}

log "act runs"
: > "$OUT/timings"
for j in gate-pass gate-regressed gate-mismatch gate-planted gate-source; do run "$j"; done

log "checks"
check "pass: act exit 0"                           "[ \$(cat $OUT/gate-pass.rc) = 0 ]"
check "pass: downloaded from the test server and verified" "g gate-pass.log 'downloading http://127.0.0.1:$GOOD_PORT/rubricgate_${version}_linux_amd64.tar.gz' && g gate-pass.log 'verified rubricgate_${version}_linux_amd64.tar.gz'"
check "pass: outputs readable by a later step"     "g gate-pass.checks 'decision=pass passed=true score=81.3 baseline-score=81.3 relative-change=0 blocking-failures=0'"
# The summary's first line may be the comment's hidden state line; act logs
# the rest of it line by line after "Summary - ".
check "pass: job summary written"                  "g gate-pass.log 'Summary - ' && g gate-pass.log '^[0-9.]* ### ✅ rubricgate: support-answers passed'"
check "pass: the report output exists, under runner.temp" "g gate-pass.checks 'report-exists=yes' && g gate-pass.checks 'report-under-runner-temp=yes' && ! g gate-pass.checks 'report-exists=NO'"
check "pass: markdown in the workspace"            "g gate-pass.checks 'workspace-file rubricgate.md'"
check "pass: second step takes the tool cache, one download" "g gate-pass.log 'from the tool cache' && [ \$(grep -c 'rubricgate install: downloading' $OUT/gate-pass.log) = 1 ]"
check "regressed: act exit non-zero, gate exit 1"  "[ \$(cat $OUT/gate-regressed.rc) != 0 ] && g gate-regressed.log 'exit status 1'"
check "regressed: outputs readable by a later step" "g gate-regressed.checks 'decision=block passed=false score=75.9 baseline-score=81.3 relative-change=-0.06593 blocking-failures=1'"
check "regressed: job summary written"             "g gate-regressed.log 'Summary - ' && g gate-regressed.log '^[0-9.]* ### ❌ rubricgate: support-answers blocked'"
check "regressed: the report output exists"        "g gate-regressed.checks 'report-exists=yes'"
check "mismatch: act exit non-zero"                "[ \$(cat $OUT/gate-mismatch.rc) != 0 ]"
check "mismatch: the install says checksum mismatch" "g gate-mismatch.log 'checksum mismatch for rubricgate_${version}_linux_amd64.tar.gz'"
check "mismatch: nothing ran, nothing cached"      "! g gate-mismatch.log '| rubricgate: ' && ! g gate-mismatch.checks 'decision=pass' && [ -z \"\$(find $S/actcache-gate-mismatch/tool_cache -name 'rubricgate*' -type f 2>/dev/null)\" ]"
check "planted: act exit 0, the planted binary never ran" "[ \$(cat $OUT/gate-planted.rc) = 0 ] && [ ! -e $OUT/planted-ran ]"
check "planted: warned, downloaded and verified"   "g gate-planted.log 'tool cache holds a rubricgate $version binary whose SHA-256' && g gate-planted.log 'verified rubricgate_${version}_linux_amd64.tar.gz/rubricgate'"
check "planted: outputs readable by a later step"  "g gate-planted.checks 'decision=pass passed=true score=81.3'"
check "source: uses ./ builds from source, says so" "[ \$(cat $OUT/gate-source.rc) = 0 ] && g gate-source.log 'not a release tag): building rubricgate' && ! g gate-source.log 'rubricgate install: downloading'"
check "source: outputs readable by a later step"  "g gate-source.checks 'decision=pass passed=true score=81.3'"
cat "$OUT/timings"
echo "logs in $OUT"
exit $fail
