#!/usr/bin/env bash
# bench.sh: time rubricgate's scoring against the plain-Python scorer
# (scripts/score.py) on the same generated run, side by side, and check the
# targets: 1M items in under 1 s, at least 5x faster than Python, peak RSS
# under 64 MiB + 16 bytes an item. Also checks that both give the same figures.
#
# Then the gate, side by side with score on the same run: the first baseline
# written from a passing run of N items (genrun -unsafe 0 -errors 0), and
# `gate` on the run against that N-item baseline, in PAIRS (default 5)
# alternating runs of score then gate, each a whole process (a CI run pays
# the first iteration). Targets: the median of the pairs' time ratios
# gate/score within 1.3x, gate peak RSS under 96 MiB (the pairs' CPU time,
# user + system, and its median ratio are printed beside, without a target:
# on a busy machine they follow the load much less); the write's own cost
# (gate writing the baseline minus score on that run) under 1 s. At 1M
# items, also the allocation of one in-process run of each
# (cmd/rubricgate BenchmarkMillion, -benchtime 1x): gate within 1.5x of
# score's bytes.
#
# Usage: scripts/bench.sh [N]   (N items, default 1000000; or N=... in the env)
# Data goes to bench/data/ (gitignored), or $BENCH_DATA.
set -euo pipefail

cd "$(dirname "$0")/.."
N="${1:-${N:-1000000}}"
DATA="${BENCH_DATA:-bench/data}"
RUNS="${RUNS:-3}"
mkdir -p "$DATA"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/genrun" ./scripts/genrun
run="$DATA/run-$N.jsonl"
rubric="$DATA/rubric.json"
if [[ ! -s "$run" || ! -s "$rubric" ]]; then
	echo "generating $N items into $run"
	"$tmp/genrun" -n "$N" -o "$run.tmp" -rubric "$rubric"
	mv "$run.tmp" "$run"
fi
bytes=$(wc -c <"$run")

# The CLI when it exists, else genrun's -score driver (same gate.Score).
if compgen -G "cmd/rubricgate/*.go" >/dev/null && go build -o "$tmp/rubricgate" ./cmd/rubricgate 2>/dev/null; then
	go_cmd=("$tmp/rubricgate" score --rubric "$rubric" --results "$run" --json /dev/null)
	go_name="rubricgate score"
else
	go_cmd=("$tmp/genrun" -score "$run")
	go_name="genrun -score (gate.Score)"
fi

# measure NAME CMD...: best-of-RUNS wall time; prints "wall cpu maxrss_kb"
# (cpu: user + system time).
have_time=0
[[ -x /usr/bin/time ]] && have_time=1
# Exit status 1 is accepted: `rubricgate score` says "blocked" that way (the
# generated run has blocking failures); anything else is an error.
measure() {
	local runs="$1"
	shift
	local best="" line rc
	for ((i = 0; i < runs; i++)); do
		if ((have_time)); then
			rc=0
			/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
			((rc <= 1)) || { cat "$tmp/err" >&2; return 1; }
			line="$(tail -1 "$tmp/t" | awk '{printf "%s %.2f %s", $1, $2 + $3, $4}')"
		else
			local s e
			s=$(date +%s.%N)
			rc=0
			"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
			((rc <= 1)) || { cat "$tmp/err" >&2; return 1; }
			e=$(date +%s.%N)
			line="$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.2f", e-s}') 0 0"
		fi
		if [[ -z "$best" ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
			best="$line"
		fi
	done
	echo "$best"
}

echo "input: $run ($N items, $((bytes / 1048576)) MiB), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
go_m=$(measure "$RUNS" "${go_cmd[@]}")
py_m=$(measure 1 python3 scripts/score.py "$rubric" "$run")
cp "$tmp/out" "$tmp/py.json"
"$tmp/genrun" -score "$run" >"$tmp/go.json"

read -r gw gu gm <<<"$go_m"
read -r pw pu pm <<<"$py_m"
printf '%-28s %8s %8s %10s %12s\n' tool wall_s cpu_s maxrss_MiB items/s
row() { awk -v t="$1" -v w="$2" -v u="$3" -v m="$4" -v n="$N" 'BEGIN{printf "%-28s %8.2f %8.2f %10.1f %12.0f\n", t, w, u, m/1024, (w>0 ? n/w : 0)}'; }
row "$go_name" "$gw" "$gu" "$gm"
row "python3 scripts/score.py" "$pw" "$pu" "$pm"

status=0
speedup=$(awk -v p="$pw" -v g="$gw" 'BEGIN{print (g>0 ? p/g : 0)}')
printf 'speedup over Python: %.1fx (target >= 5x)\n' "$speedup"
awk -v s="$speedup" 'BEGIN{exit !(s>=5)}' || { echo "FAIL: less than 5x faster than Python"; status=1; }
if ((N == 1000000)); then
	awk -v w="$gw" 'BEGIN{exit !(w<1)}' && echo "1M items in ${gw}s (target < 1 s)" || { echo "FAIL: 1M items took ${gw}s (target < 1 s)"; status=1; }
fi
if ((have_time)); then
	limit_kb=$((64 * 1024 + 16 * N / 1024))
	((gm <= limit_kb)) && echo "peak RSS ${gm} KiB (limit ${limit_kb} KiB = 64 MiB + 16 B/item)" || { echo "FAIL: peak RSS ${gm} KiB over ${limit_kb} KiB"; status=1; }
fi

# Same figures from both (the score sums in chunks, so allow rounding noise).
python3 - "$tmp/go.json" "$tmp/py.json" <<'PY' || status=1
import json, sys
g, p = (json.load(open(f)) for f in sys.argv[1:3])
bad = []
for k in ("items", "scored"):
    if g[k] != p[k]:
        bad.append(f"{k}: go {g[k]} python {p[k]}")
for k in ("score", "pass_rate"):
    if abs(g[k] - p[k]) > 1e-9 * max(1, abs(p[k])):
        bad.append(f"{k}: go {g[k]!r} python {p[k]!r}")
for gc, pc in zip(g["criteria"], p["criteria"]):
    if abs(gc["mean"] - pc["mean"]) > 1e-12:
        bad.append(f"{gc['id']} mean: go {gc['mean']!r} python {pc['mean']!r}")
if bad:
    print("FAIL: figures differ:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"figures agree: score {g['score']:.6f}, pass rate {g['pass_rate']:.6f}, {g['items']} items")
PY

# The gate against an N-item baseline, side by side with score on the same run.
if [[ -x "$tmp/rubricgate" ]]; then
	brun="$DATA/basepass-$N.jsonl"
	if [[ ! -s "$brun" ]]; then
		echo "generating the $N-item passing baseline run into $brun"
		"$tmp/genrun" -n "$N" -o "$brun.tmp" -seed 2 -unsafe 0 -errors 0
		mv "$brun.tmp" "$brun"
	fi
	rg="$tmp/rubricgate"
	bscore_m=$(measure "$RUNS" "$rg" score --rubric "$rubric" --results "$brun" --max-unscored 1% --json /dev/null)
	# The first baseline: no baseline in the local store, so the passing run
	# is saved there (one write, as in a first run outside Actions).
	write_m=$(measure "$RUNS" bash -c 'rm -rf "$1" && exec "${@:2}"' _ "$tmp/store" "$rg" gate --rubric "$rubric" --results "$brun" --max-unscored 1% --baseline-dir "$tmp/store" --branch main --baseline-branch main --comment never)
	bfile=$(find "$tmp/store" -name '*.json' | head -1)
	[[ -s "$bfile" ]] || { echo "FAIL: no baseline written"; exit 1; }
	cp "$bfile" "$DATA/baseline-$N.json"
	# Alternating pairs, score then gate, each run once.
	PAIRS="${PAIRS:-5}"
	ratios=() cpu_ratios=() score_runs=() gate_runs=()
	for ((p = 0; p < PAIRS; p++)); do
		s_m=$(measure 1 "$rg" score --rubric "$rubric" --results "$run" --max-unscored 1% --json /dev/null)
		g_m=$(measure 1 "$rg" gate --rubric "$rubric" --results "$run" --max-unscored 1% --baseline "$DATA/baseline-$N.json" --comment never --json "$tmp/gate.json")
		score_runs+=("$s_m")
		gate_runs+=("$g_m")
		ratios+=("$(awk -v g="${g_m%% *}" -v s="${s_m%% *}" 'BEGIN{print (s>0 ? g/s : 0)}')")
		read -r _ gc _ <<<"$g_m"
		read -r _ sc _ <<<"$s_m"
		cpu_ratios+=("$(awk -v g="$gc" -v s="$sc" 'BEGIN{print (s>0 ? g/s : 0)}')")
	done
	echo
	printf '%-44s %8s %8s %10s\n' "gate, $N items" wall_s cpu_s maxrss_MiB
	grow() { awk -v t="$1" -v w="$2" -v u="$3" -v m="$4" 'BEGIN{printf "%-44s %8.2f %8.2f %10.1f\n", t, w, u, m/1024}'; }
	grow "score (baseline run)" $bscore_m
	grow "gate, no baseline yet, saves the baseline" $write_m
	gm2=0
	for ((p = 0; p < PAIRS; p++)); do
		grow "pair $((p + 1)): score (run)" ${score_runs[p]}
		grow "pair $((p + 1)): gate against the $N-item baseline" ${gate_runs[p]}
		read -r _ _ m <<<"${gate_runs[p]}"
		((m > gm2)) && gm2=$m
	done
	read -r bw bu bm <<<"$bscore_m"
	read -r ww wu wm <<<"$write_m"
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["paired"]; print("paired: %d common, interval %s %s" % (p["common"], p["interval"], p["ci95"]))' "$tmp/gate.json"
	ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
	echo "gate/score time ratios: ${ratios[*]}"
	# No target for CPU time, but it follows the load much less than the
	# wall time does: on a busy machine it is the figure to compare.
	cpu_ratio=$(printf '%s\n' "${cpu_ratios[@]}" | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
	printf 'gate/score CPU (user+sys) ratios: %s; median %.2f\n' "${cpu_ratios[*]}" "$cpu_ratio"
	awk -v r="$ratio" 'BEGIN{exit !(r<=1.3)}' && printf 'gate %.2fx the time of score, median of %d pairs (target <= 1.3x)\n' "$ratio" "$PAIRS" || { printf 'FAIL: gate %.2fx the time of score, median of %d pairs (target <= 1.3x)\n' "$ratio" "$PAIRS"; status=1; }
	wcost=$(awk -v w="$ww" -v s="$bw" 'BEGIN{print w-s}')
	awk -v c="$wcost" 'BEGIN{exit !(c<1)}' && printf 'baseline write: %.2f s over scoring (target < 1 s)\n' "$wcost" || { printf 'FAIL: baseline write %.2f s over scoring (target < 1 s)\n' "$wcost"; status=1; }
	if ((have_time)); then
		((gm2 < 96 * 1024)) && echo "gate peak RSS ${gm2} KiB, highest of the pairs (target < 96 MiB)" || { echo "FAIL: gate peak RSS ${gm2} KiB (target < 96 MiB)"; status=1; }
	fi
	if ((N == 1000000)); then
		# Allocation, in process: one run of each (the first iteration).
		BENCH_DATA="$DATA" go test -run '^$' -bench Million -benchtime 1x ./cmd/rubricgate >"$tmp/alloc" || { cat "$tmp/alloc"; status=1; }
		sb=$(awk '/BenchmarkMillion\/score/{for(i=1;i<=NF;i++) if($(i+1)=="B/op") print $i}' "$tmp/alloc")
		gb=$(awk '/BenchmarkMillion\/gate/{for(i=1;i<=NF;i++) if($(i+1)=="B/op") print $i}' "$tmp/alloc")
		ar=$(awk -v g="$gb" -v s="$sb" 'BEGIN{print (s>0 ? g/s : 0)}')
		awk -v r="$ar" 'BEGIN{exit !(r<=1.5 && r>0)}' && printf 'gate allocates %.2fx score (%d / %d MB; target <= 1.5x)\n' "$ar" "$((gb / 1000000))" "$((sb / 1000000))" || { printf 'FAIL: gate allocates %.2fx score (%s / %s bytes; target <= 1.5x)\n' "$ar" "$gb" "$sb"; status=1; }
	fi
fi
exit $status
