"""Builds evalset/, an Inspect eval-set directory, from the logs beside it.

inspect_ai cannot be installed here (PyPI is not reachable), so the layout
follows its source at commit 499e6152e7b8: src/inspect_ai/_eval/evalset.py
(EvalSet, EvalSetTask, write_eval_set_info: eval-set.json) and
src/inspect_ai/log/_file.py (write_log_dir_manifest: logs.json, the log
headers, EvalLog without samples, keyed by the log's name relative to the
directory). Two tasks (capitals: epochs.json; popularity: log_formats.json)
whose sample ids collide (both have a sample 1), and a failed first attempt
of popularity (status "error", kept as with retry_cleanup=False).

    python3 make_evalset.py   # from formats/testdata/inspect
"""
import copy
import json
import os

OUT = "evalset"
os.makedirs(OUT, exist_ok=True)

capitals = json.load(open("epochs.json"))
popularity = json.load(open("log_formats.json"))
failed = copy.deepcopy(popularity)
failed["status"] = "error"
failed["error"] = {"message": "RateLimitError: simulated", "traceback": "", "traceback_ansi": ""}
failed["samples"] = []
failed.pop("results", None)

logs = {
    "2026-12-01T10-00-00+00-00_capitals_aaaaaaaaaaaaaaaaaaaaaa.json": capitals,
    "2026-12-01T10-00-00+00-00_popularity_bbbbbbbbbbbbbbbbbbbbbb.json": failed,
    "2026-12-01T10-05-00+00-00_popularity_cccccccccccccccccccccc.json": popularity,
}
for name, log in logs.items():
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(log, f, indent=2)


def header(log):
    h = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
    return h


with open(os.path.join(OUT, "logs.json"), "w") as f:
    json.dump({name: header(log) for name, log in logs.items()}, f, indent=2)

tasks = []
for seq, log in enumerate([capitals, popularity]):
    ev = log["eval"]
    tasks.append({
        "name": ev["task"],
        "task_id": ev["task_id"],
        "task_file": ev.get("task_file"),
        "task_args": ev.get("task_args", {}),
        "model": ev["model"],
        "model_args": ev.get("model_args", {}),
        "model_roles": None,
        "sequence": seq,
    })
with open(os.path.join(OUT, "eval-set.json"), "w") as f:
    json.dump({"eval_set_id": "evalset-fixture", "tasks": tasks}, f, indent=2)
