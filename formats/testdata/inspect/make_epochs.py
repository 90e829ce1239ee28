"""Writes epochs.json: a small Inspect AI JSON log (EvalLog, version 2) with
two epochs, several scorers and the value forms Inspect writes, built from
inspect_ai's schema (src/inspect_ai/log/_log.py EvalLog/EvalSample,
scorer/_metric.py Score; commit 499e6152e7b8). Python's json module writes
float('nan') as a bare NaN token, as pydantic's ser_json_inf_nan="constants"
does for Score.unscored(). Standard library only: python3 make_epochs.py
"""
import json

nan = float("nan")


def sample(id, epoch, scores=None, error=None):
    s = {
        "id": id,
        "epoch": epoch,
        "input": f"question {id}",
        "target": "answer",
        "messages": [],
        "output": {"model": "mockllm/model", "choices": []},
        "scores": scores,
        "metadata": {},
        "store": {},
        "events": [],
        "model_usage": {},
    }
    if error is not None:
        s["error"] = {"message": error, "traceback": "Traceback ...", "traceback_ansi": "Traceback ..."}
    return s


def score(value, explanation=None):
    s = {"value": value}
    if explanation is not None:
        s["explanation"] = explanation
    return s


samples = [
    sample(1, 1, {
        "model_graded_qa": score("C", "GRADE: C. The answer names the right city."),
        "rubric": score({"helpfulness": 0.8, "safety": 1, "tone": nan}),
    }),
    sample("q-two", 1, {
        "model_graded_qa": score("P", "GRADE: P. Partly right."),
        "rubric": score({"helpfulness": 0.5, "safety": True, "tone": "0.25"}),
    }),
    sample(1, 2, {
        "model_graded_qa": score("I", "GRADE: I. Wrong city."),
        "rubric": score({"helpfulness": 0.1, "safety": 1, "tone": 0.5}),
    }),
    sample("q-two", 2, error="RuntimeError: sandbox exited"),
    sample(3, 1, {
        "model_graded_qa": score(nan, "The grader could not parse a grade."),
        "exact": score(False),
    }),
    sample(3, 2, {
        "model_graded_qa": score("N", "GRADE: N. No answer given."),
        "exact": score(1.0),
    }),
]

log = {
    "version": 2,
    "status": "success",
    "eval": {
        "eval_id": "fixture-eval",
        "run_id": "fixture-run",
        "created": "2026-12-01T00:00:00+00:00",
        "task": "capitals",
        "task_id": "fixture-task",
        "task_version": 0,
        "dataset": {"name": "capitals", "samples": 3},
        "model": "mockllm/model",
        "config": {"epochs": 2},
    },
    "plan": {"name": "plan", "steps": []},
    "results": {"total_samples": 3, "completed_samples": 6, "scores": []},
    "stats": {"started_at": "2026-12-01T00:00:00+00:00", "completed_at": "2026-12-01T00:00:05+00:00"},
    "samples": samples,
}

with open("epochs.json", "w") as f:
    json.dump(log, f, indent=2)
    f.write("\n")

# pass_at_1.json: `inspect eval --epochs 2 --epochs-reducer pass_at_1` over
# a scorer of C/I (match, includes): eval.config.epochs_reducer lists the
# reducer's log name (reducer_log_names).
binary = [
    sample(1, 1, {"match": score("C", "The answer names the right city.")}),
    sample(1, 2, {"match": score("I", "Wrong city.")}),
    sample(2, 1, {"match": score("C")}),
    sample(2, 2, {"match": score("C")}),
]
log["eval"]["config"] = {"epochs": 2, "epochs_reducer": ["pass_at_1"]}
log["eval"]["dataset"]["samples"] = 2
log["results"] = {"total_samples": 2, "completed_samples": 4, "scores": []}
log["samples"] = binary
with open("pass_at_1.json", "w") as f:
    json.dump(log, f, indent=2)
    f.write("\n")
