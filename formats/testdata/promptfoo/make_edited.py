"""Makes zeroweight.json and twotests.json from repeat.json (a real
promptfoo 0.121.20 run, see README.md), doing what promptfoo does where
the config differs: AssertionsResult.addResult/testResult
(src/assertions/assertionsResult.ts) recompute the row's gradingResult.

- zeroweight.json: every test gains the assertion
  {type: javascript, value: "output.length < 200", metric: brief, weight: 0}
  (it passes: score 1, "Assertion passed"). promptfoo sums score*weight and
  weight per metric and writes sum/weights, or 0 where the weights sum to
  0: brief is 0 on every row, namedScoreWeights.brief 0.
- twotests.json: no --repeat; the arithmetic test twice, one with its
  javascript assertion, one with {type: icontains, value: "4", metric:
  accuracy}: two tests of one description and vars (testIdx 0 and 1).

Run: python3 make_edited.py (writes both files here).
"""
import copy
import json

BRIEF = {"type": "javascript", "value": "output.length < 200", "metric": "brief", "weight": 0}
FOUR = {"type": "icontains", "value": "4", "metric": "accuracy"}


def js(x):
    """A number as JSON.stringify writes it (1, not 1.0)."""
    return int(x) if x == int(x) else x


def grade(row, components):
    """AssertionsResult: addResult for each component, then testResult."""
    total, weight, named, weights = 0.0, 0.0, {}, {}
    failed = None
    for c in components:
        a = c["assertion"]
        w = a.get("weight", 1)
        total += c["score"] * w
        weight += w
        m = a.get("metric")
        if m:
            named[m] = named.get(m, 0) + c["score"] * w
            weights[m] = weights.get(m, 0) + w
        if not c["pass"]:
            failed = c["reason"]
    score = js(total / weight if weight > 0 else 0)
    norm = {k: js(v / weights[k] if weights[k] > 0 else 0) for k, v in named.items()}
    gr = row["gradingResult"]
    gr["pass"] = failed is None
    gr["score"] = score
    gr["reason"] = failed or "All assertions passed"
    gr["namedScores"] = norm
    gr["namedScoreWeights"] = weights
    gr["componentResults"] = components
    row["namedScores"] = norm
    row["score"] = score
    row["success"] = failed is None
    if failed is None:
        row.pop("error", None)
        row["failureReason"] = 0
    else:
        row["error"] = failed
        row["failureReason"] = 1


def zeroweight(d):
    for t in d["config"]["tests"]:
        t["assert"].append(BRIEF)
    for row in d["results"]["results"]:
        row["testCase"]["assert"].append(BRIEF)
        out = row["response"]["output"]
        comps = row["gradingResult"]["componentResults"] + [
            {"pass": len(out) < 200, "score": 1 if len(out) < 200 else 0,
             "reason": "Assertion passed", "assertion": BRIEF}]
        grade(row, comps)
    return d


def twotests(d):
    rows = [r for r in d["results"]["results"] if r["testCase"]["description"] == "arithmetic"]
    first, second = copy.deepcopy(rows[0]), copy.deepcopy(rows[1])
    first["testIdx"], second["testIdx"] = 0, 1
    second["testCase"]["assert"] = [FOUR]
    out = second["response"]["output"]
    ok = "4" in out.lower()
    grade(second, [{"pass": ok, "score": 1 if ok else 0,
                    "reason": "Assertion passed" if ok else 'Expected output to contain "4"',
                    "assertion": FOUR}])
    d["results"]["results"] = [first, second]
    tests = d["config"]["tests"]
    arith = [t for t in tests if t["description"] == "arithmetic"][0]
    d["config"]["tests"] = [arith, dict(copy.deepcopy(arith), **{"assert": [FOUR]})]
    return d


for name, fn in (("zeroweight.json", zeroweight), ("twotests.json", twotests)):
    with open("repeat.json") as f:
        d = json.load(f)
    with open(name, "w") as f:
        json.dump(fn(d), f, indent=2)
        f.write("\n")
