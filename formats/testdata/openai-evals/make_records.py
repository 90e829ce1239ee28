"""Writes match.jsonl and modelgraded.jsonl: openai/evals record files as
evals.record.LocalRecorder writes them (a spec line, then events, then the
final report), built from openai/evals evals/record.py (Event,
RecorderBase.record_match / record_metrics / record_sampling / record_error,
LocalRecorder) and evals/base.py (RunSpec), commit 4bfc1f58a821. Sample ids
are "<base_eval>.<split>.<index>" as evals/eval.py makes them. Standard
library only: python3 make_records.py
"""
import json

RUN = "261201000000ABCDEFGH"


def spec(eval_name, base_eval, split):
    return {"spec": {"completion_fns": ["gpt-4o-mini"], "eval_name": eval_name, "base_eval": base_eval,
                     "split": split, "run_config": {"completion_fns": ["gpt-4o-mini"], "eval_spec": {}, "seed": 20220722,
                     "max_samples": None, "command": "oaieval gpt-4o-mini " + eval_name, "initial_settings": {"visible": True}},
                     "created_by": "", "run_id": RUN, "created_at": "2026-12-01 00:00:00.000000"}}


class Events:
    def __init__(self):
        self.lines = []
        self.n = 0

    def add(self, sample_id, type, data):
        self.lines.append({"run_id": RUN, "event_id": self.n, "sample_id": sample_id, "type": type, "data": data,
                           "created_by": "", "created_at": "2026-12-01 00:00:0%d.000000+00:00" % (self.n % 10)})
        self.n += 1


def write(path, head, ev, report):
    with open(path, "w") as f:
        f.write(json.dumps(head, ensure_ascii=False) + "\n")
        for e in ev.lines:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
        f.write(json.dumps({"final_report": report, "run_id": RUN}, ensure_ascii=False) + "\n")


# A Match eval: sampling then match events, interleaved across threads.
ev = Events()
ev.add("test-match.s1.0", "sampling", {"prompt": [{"role": "user", "content": "2+2?"}], "sampled": ["4"]})
ev.add("test-match.s1.1", "sampling", {"prompt": [{"role": "user", "content": "Capital of France?"}], "sampled": ["Lyon"]})
ev.add("test-match.s1.0", "match", {"correct": True, "expected": "4", "picked": "4", "sampled": "4", "options": ["4"]})
ev.add("test-match.s1.2", "sampling", {"prompt": [{"role": "user", "content": "Largest ocean?"}], "sampled": ["Pacific"]})
ev.add("test-match.s1.1", "match", {"correct": False, "expected": "Paris", "picked": None, "sampled": "Lyon", "options": ["Paris"]})
ev.add("test-match.s1.2", "match", {"correct": True, "expected": "Pacific", "picked": "Pacific", "sampled": "Pacific", "options": ["Pacific"]})
ev.add("test-match.s1.3", "error", {"type": "RateLimitError", "message": "quota exceeded"})
write("match.jsonl", spec("test-match.s1.simple-v0", "test-match", "s1"), ev, {"accuracy": 0.6666666666666666, "boostrap_std": 0.3})

# A model-graded (classify) eval: metrics events with choice and score,
# the score from the spec's choice_scores (closedqa: Y 1.0, N 0.0); a
# grade that matches no choice is "__invalid__" and scores the lowest
# (classify_utils.get_choice_score: "each INVALID_STR contributes the
# lowest score"). The report's score is the mean of the non-null scores.
ev = Events()
for i, (choice, score) in enumerate([("Y", 1.0), ("N", 0.0), ("__invalid__", 0.0)]):
    sid = "coqa-closedqa.dev.%d" % i
    ev.add(sid, "sampling", {"prompt": "question %d" % i, "sampled": ["answer %d" % i]})
    ev.add(sid, "sampling", {"prompt": "grade answer %d" % i, "sampled": ["reasoning... %s" % choice]})
    ev.add(sid, "metrics", {"choice": choice, "score": score})
write("modelgraded.jsonl", spec("coqa-closedqa-correct.dev.v0", "coqa-closedqa-correct", "dev"), ev,
      {"counts/Y": 1, "counts/N": 1, "counts/__invalid__": 1, "score": 1 / 3})

# A model-graded eval whose spec has no choice_scores (fact: choices A to
# E are labels): get_choice_score returns None, so every sample records
# score null, and the report has counts but no score.
ev = Events()
for i, choice in enumerate(["A", "C", "__invalid__"]):
    sid = "fact.dev.%d" % i
    ev.add(sid, "sampling", {"prompt": "question %d" % i, "sampled": ["answer %d" % i]})
    ev.add(sid, "sampling", {"prompt": "grade answer %d" % i, "sampled": ["reasoning... %s" % choice]})
    ev.add(sid, "metrics", {"choice": choice, "score": None})
write("modelgraded_fact.jsonl", spec("fact.dev.v0", "fact", "dev"), ev,
      {"counts/A": 1, "counts/C": 1, "counts/__invalid__": 1})

# Hostile: a second run's events appended; a duplicate match; no final
# report; a metric that is a list.
lines = open("match.jsonl").read().splitlines()
open("../hostile/evals-tworuns.jsonl", "w").write("\n".join(lines[:3] + [lines[3].replace(RUN, "OTHERRUN")] + lines[4:]) + "\n")
open("../hostile/evals-dupmatch.jsonl", "w").write("\n".join(lines[:-1] + [lines[3], lines[-1]]) + "\n")
open("../hostile/evals-nofinal.jsonl", "w").write("\n".join(lines[:-1]) + "\n")
ml = open("modelgraded.jsonl").read().splitlines()
open("../hostile/evals-listmetric.jsonl", "w").write("\n".join(ml[:3] + [ml[3].replace('"score": 1.0', '"score": [1.0]')] + ml[4:]) + "\n")

# As oaieval really leaves a file: LocalRecorder writes the final report at
# once but flushes buffered events in batches (MIN_FLUSH_EVENTS /
# MIN_FLUSH_SECONDS) and the last batch at exit (atexit flush_events), so
# events follow the report; and before evals commit cf002f29 (January 2024)
# the final_report line had no run_id.
ev = Events()
ev.add("test-match.s1.0", "sampling", {"prompt": [{"role": "user", "content": "2+2?"}], "sampled": ["4"]})
ev.add("test-match.s1.0", "match", {"correct": True, "expected": "4", "picked": "4", "sampled": "4", "options": ["4"]})
ev.add("test-match.s1.1", "sampling", {"prompt": [{"role": "user", "content": "Capital of France?"}], "sampled": ["Lyon"]})
ev.add("test-match.s1.1", "match", {"correct": False, "expected": "Paris", "picked": None, "sampled": "Lyon", "options": ["Paris"]})
with open("flushed-after-report.jsonl", "w") as f:
    f.write(json.dumps(spec("test-match.s1.simple-v0", "test-match", "s1"), ensure_ascii=False) + "\n")
    for e in ev.lines[:2]:
        f.write(json.dumps(e, ensure_ascii=False) + "\n")
    f.write(json.dumps({"final_report": {"accuracy": 0.5}}, ensure_ascii=False) + "\n")
    for e in ev.lines[2:]:
        f.write(json.dumps(e, ensure_ascii=False) + "\n")
