#!/usr/bin/env python3
"""Plain-Python reference scorer for the benchmark (scripts/bench.sh).

Reads a rubric in the plain JSON shape written by `go run ./scripts/genrun
-rubric FILE` and one JSON-lines results file, and applies seed 002's
arithmetic in a single pass with the json module, as a straightforward
script would:

    norm  = (s - low) / (high - low)
    score = 100 * sum(w * norm) / sum(w)      over the item's non-na criteria
    pass  = score >= threshold and every critical criterion meets its minimum

It checks duplicate ids, scales and na, and prints the run figures as JSON
(items, scored, score, pass_rate, per-criterion means) so bench.sh can
compare them with rubricgate's. It is a yardstick, not a product: no CSV,
and errors stop it with a message.

Usage: python3 scripts/score.py RUBRIC.json RESULTS.jsonl
"""
import json
import sys

RESERVED = {"id", "error", "reasoning", "notes", "reviewer", "judge_model",
            "retrieval_miss", "pass", "length", "scores"}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        rubric = json.load(f)
    crits = rubric["criteria"]
    for c in crits:  # the canonical form keeps the scale as [lowest, highest]
        c["low"], c["high"] = c["scale"]
        c.setdefault("aliases", [])
        c.setdefault("na", False)
    threshold = rubric["threshold"]
    index = {}
    for i, c in enumerate(crits):
        index[c["id"].lower()] = i
        for a in c.get("aliases") or []:
            index[a.lower()] = i
    n = len(crits)
    seen = {}
    items = scored = passed = 0
    total = 0.0
    sums = [0] * n
    counts = [0] * n
    path = sys.argv[2]
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            iid = obj.get("id")
            if not isinstance(iid, str) or not iid.strip():
                sys.exit(f"{path}:{lineno}: missing id")
            if iid in seen:
                sys.exit(f"{path}:{lineno}: duplicate id {iid!r} (first at {path}:{seen[iid]})")
            seen[iid] = lineno
            items += 1
            if obj.get("error"):
                continue
            vals = [None] * n
            src = obj.get("scores") or {}
            pairs = list(src.items()) + [(k, v) for k, v in obj.items() if k not in RESERVED]
            for k, v in pairs:
                i = index.get(k.strip().lower())
                if i is None:
                    continue
                if vals[i] is not None:
                    sys.exit(f"{path}:{lineno}: criterion {crits[i]['id']!r} given twice")
                vals[i] = v
            num = den = 0.0
            ok = True
            for i, c in enumerate(crits):
                v = vals[i]
                if v is None:
                    sys.exit(f"{path}:{lineno}: missing criterion {c['id']!r}")
                if isinstance(v, str) and v.strip().lower() == "na":
                    if not c.get("na"):
                        sys.exit(f"{path}:{lineno}: na not allowed for {c['id']!r}")
                    continue
                s = int(v)
                if s != v or not (c["low"] <= s <= c["high"]):
                    sys.exit(f"{path}:{lineno}: bad score {v!r} for {c['id']!r}")
                w = c["weight"]
                num += w * ((s - c["low"]) / (c["high"] - c["low"]))
                den += w
                sums[i] += s
                counts[i] += 1
                if c.get("critical") is not None and s < c["critical"]:
                    ok = False
            score = 100 * num / den
            scored += 1
            total += score
            if score >= threshold and ok:
                passed += 1
    if items == 0:
        sys.exit(f"{path}: no items")
    out = {
        "items": items,
        "scored": scored,
        "score": total / scored if scored else None,
        "pass_rate": passed / scored if scored else None,
        "criteria": [{"id": c["id"], "mean": sums[i] / counts[i] if counts[i] else None}
                     for i, c in enumerate(crits)],
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
