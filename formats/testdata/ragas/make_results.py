"""Writes the ragas result CSVs as result.to_pandas().to_csv(path) writes
them (pandas' default: the index as a first column with an empty header,
NaN as an empty cell, lists as their Python repr, QUOTE_MINIMAL), built
from ragas' schema (src/ragas/dataset_schema.py SingleTurnSample and
EvaluationResult.to_pandas; commit 3e28e9dec938). pandas is not needed:
the csv module writes the same text. python3 make_results.py
"""
import csv

nan = float("nan")


def cell(v):
    if isinstance(v, float) and v != v:
        return ""
    if isinstance(v, list):
        return repr(v)
    return v


def write(path, header, rows, index=True, encoding="utf-8"):
    with open(path, "w", newline="", encoding=encoding) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(([""] if index else []) + header)
        for i, r in enumerate(rows):
            w.writerow(([i] if index else []) + [cell(v) for v in r])


# ragas 0.2+: evaluate() over a SingleTurnSample dataset, four metrics; a
# metric that failed is NaN (raise_exceptions=False).
header = ["user_input", "retrieved_contexts", "response", "reference",
          "faithfulness", "answer_relevancy", "context_precision", "context_recall"]
rows = [
    ["When was the first super bowl?", ["The First AFL-NFL World Championship Game was played on January 15, 1967."],
     "The first superbowl was held on Jan 15, 1967", "The first superbowl was held on January 15, 1967.",
     1.0, 0.9810748321744826, 0.9999999999, 1.0],
    ["Who won the most super bowls?", ["The Patriots and the Steelers, with six wins each, have the most Super Bowl titles."],
     "The most super bowls have been won by the New England Patriots, \"the Pats\"", "The Patriots and the Steelers have won the most.",
     0.5, 0.9426987104512016, 0.9999999999, nan],
    ["Who wrote Hamlet?\nAnswer in one word.", [], "Shakespeare", "William Shakespeare",
     nan, 0.8837, 0.0, 0.0],
]
write("results.csv", header, rows)
# The same run saved with to_csv(path, index=False, encoding="utf-8-sig"),
# as Excel users do: the text starts with a UTF-8 byte order mark, right
# before the first column's name.
write("results_bom.csv", header, rows, index=False, encoding="utf-8-sig")

# An explicit id column, the pre-0.2 column names, no index.
header = ["id", "question", "contexts", "answer", "ground_truth", "faithfulness", "answer_correctness"]
rows = [
    ["q1", "When was the first super bowl?", ["Jan 15, 1967"], "Jan 15, 1967", "January 15, 1967", 1.0, 0.95],
    ["q2", "When was the first super bowl?", ["Jan 15, 1967"], "1967", "January 15, 1967", 1.0, 0.61],
    ["q3", "Who wrote Hamlet?", [], "Marlowe", "Shakespeare", "NaN", 0.05],
]
write("results_with_id.csv", header, rows, index=False)

# Hostile files.
write("../hostile/ragas-dup.csv", ["user_input", "faithfulness"], [["same", 1.0], ["other", 0.5], ["same", 0.2]])
write("../hostile/ragas-mixed-metric.csv", ["user_input", "faithfulness"], [["a", 1.0], ["b", "high"]])
write("../hostile/ragas-inf.csv", ["user_input", "faithfulness"], [["a", 1.0], ["b", "inf"]])
write("../hostile/ragas-noid.csv", ["response", "faithfulness"], [["a", 1.0]])
write("../hostile/ragas-empty-input.csv", ["user_input", "faithfulness"], [["a", 1.0], ["", 0.5]])
with open("../hostile/ragas-ragged.csv", "w") as f:
    f.write(",user_input,faithfulness\n0,a,1.0\n1,b\n")
with open("../hostile/ragas-quote.csv", "w") as f:
    f.write("user_input,faithfulness\n\"a,1.0\nb,0.5\n")
