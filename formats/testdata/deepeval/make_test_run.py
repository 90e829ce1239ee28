"""Writes test_run_20261201_000000.json: a deepeval TestRun as
TestRun.model_dump(by_alias=True, exclude_none=True) and json.dump write it
(deepeval/evaluate/local_store.py), built from deepeval's schema
(deepeval/test_run/test_run.py TestRun, test_run/api.py LLMApiTestCase and
ConversationalApiTestCase, tracing/api.py MetricData; commit a2e0d4cfd311).
Python's json module writes float('nan') as a bare NaN. Standard library
only: python3 make_test_run.py
"""
import json


def metric(name, score=None, threshold=0.5, reason=None, error=None, model="gpt-4.1"):
    m = {"name": name, "threshold": threshold, "strictMode": False, "flaky": False, "evaluationModel": model}
    if score is not None:
        m["score"] = score
        m["success"] = score == score and score >= threshold
    if reason is not None:
        m["reason"] = reason
    if error is not None:
        m["error"] = error
        m["success"] = False
    return m


run = {
    "testFile": "test_chatbot.py",
    "testCases": [
        {
            "name": "refund_policy",
            "input": "What is your refund policy?",
            "actualOutput": "You can get a refund within 30 days.",
            "success": True,
            "metricsData": [
                metric("Answer Relevancy", 0.92, reason="The answer addresses the refund question directly."),
                metric("Faithfulness", 1.0, reason="No contradictions with the retrieval context."),
            ],
            "order": 0,
        },
        {
            "name": "shipping_time",
            "input": "How long does shipping take?",
            "actualOutput": "We ship to the moon.",
            "success": False,
            "metricsData": [
                metric("Answer Relevancy", 0.31, reason="Talks about a destination, not a duration."),
                metric("Faithfulness", float("nan"), reason="No claims could be extracted."),
            ],
            "order": 1,
        },
        {
            "name": "test_case_2",
            "input": "Do you sell gift cards?",
            "actualOutput": "Yes.",
            "success": False,
            "metricsData": [
                metric("Answer Relevancy", 1.0, reason="Direct answer."),
                metric("Faithfulness", error="RateLimitError: judge model quota exceeded", model="gpt-4.1-mini"),
            ],
            "order": 2,
        },
    ],
    "conversationalTestCases": [
        {
            "name": "support_chat",
            "success": True,
            "metricsData": [metric("Conversation Completeness", 0.75, reason="Most user intentions were met.")],
            "runDuration": 1.5,
            "turns": [{"role": "user", "content": "hi", "order": 0}, {"role": "assistant", "content": "hello", "order": 1}],
            "order": 0,
        }
    ],
    "metricsScores": [],
    "testPassed": 2,
    "testFailed": 2,
    "runDuration": 12.5,
    "evaluationCost": 0.01,
}

with open("test_run_20261201_000000.json", "w") as f:
    json.dump(run, f)

bad = json.loads(json.dumps(run))
bad["testCases"][1]["name"] = "refund_policy"
with open("../hostile/deepeval-dup.json", "w") as f:
    json.dump(bad, f, indent=1)
bad = json.loads(json.dumps(run))
bad["testCases"][0]["metricsData"][0]["threshold"] = float("nan")
with open("../hostile/deepeval-nan-threshold.json", "w") as f:
    json.dump(bad, f, indent=1)
bad = json.loads(json.dumps(run))
bad["testCases"][0]["metricsData"][1]["score"] = "0.9"
with open("../hostile/deepeval-string-score.json", "w") as f:
    json.dump(bad, f, indent=1)
bad = json.loads(json.dumps(run))
del bad["testCases"][2]["name"]
with open("../hostile/deepeval-noname.json", "w") as f:
    json.dump(bad, f, indent=1)

# Directions: Bias, Hallucination, Misuse and Toxicity pass when
# score <= threshold (their is_successful); a custom metric says its
# direction only through its success flags; one with no threshold says
# nothing. Component-level metrics sit on the trace's spans (tracing/api.py
# TraceApi, BaseApiSpan), whose uuids change from run to run.
def lower(name, score, threshold=0.5, reason=None):
    m = metric(name, score, threshold, reason)
    m["success"] = score <= threshold
    return m


def span(name, type, metrics, uuid):
    return {"uuid": uuid, "name": name, "status": "SUCCESS", "type": type, "startTime": "2026-12-01T00:00:00Z",
            "endTime": "2026-12-01T00:00:01Z", "metricsData": metrics}


nothr = metric("Brevity", 0.8)
del nothr["threshold"], nothr["success"]
directions = {
    "testCases": [
        {"name": "hallucinates", "input": "Who wrote Dune?", "actualOutput": "Isaac Asimov, in 1972.", "success": False,
         "metricsData": [lower("Hallucination", 0.9, reason="Contradicts the context."), lower("Toxicity", 0.0),
                         lower("Latency Penalty", 0.2, threshold=0.3), nothr],
         "trace": {"uuid": "7d0c1f3e-0000-4000-8000-000000000001", "startTime": "2026-12-01T00:00:00Z", "endTime": "2026-12-01T00:00:02Z",
                   "status": "SUCCESS", "name": "answer",
                   "retrieverSpans": [span("kb_lookup", "retriever", [metric("Contextual Relevancy", 0.4, threshold=0.7)], "a1")],
                   "llmSpans": [span("generate", "llm", [metric("Faithfulness", 0.3, threshold=0.7)], "b1"),
                                span("generate", "llm", [metric("Faithfulness", 0.8, threshold=0.7)], "b2")]},
         "order": 0},
        {"name": "grounded", "input": "Who wrote Dune?", "actualOutput": "Frank Herbert, in 1965.", "success": True,
         "metricsData": [lower("Hallucination", 0.0), lower("Toxicity", 0.0), lower("Latency Penalty", 0.25, threshold=0.3), nothr],
         "trace": {"uuid": "7d0c1f3e-0000-4000-8000-000000000002", "startTime": "2026-12-01T00:00:00Z", "endTime": "2026-12-01T00:00:02Z",
                   "status": "SUCCESS", "name": "answer",
                   "retrieverSpans": [span("kb_lookup", "retriever", [metric("Contextual Relevancy", 0.9, threshold=0.7)], "a2")],
                   "llmSpans": [span("generate", "llm", [metric("Faithfulness", 1.0, threshold=0.7)], "b3"),
                                span("generate", "llm", [metric("Faithfulness", 0.9, threshold=0.7)], "b4")]},
         "order": 1},
    ],
    "metricsScores": [], "testPassed": 1, "testFailed": 1, "runDuration": 3.0,
}
with open("test_run_directions.json", "w") as f:
    json.dump(directions, f)

# Logged in to Confident AI, deepeval posts the run there and writes
# .deepeval/.latest_test_run.json as the link alone
# (TestRunManager.save_final_test_run_link: json.dump({LATEST_TEST_RUN_LINK_KEY: link}, file)).
with open("latest_test_run_link.json", "w") as f:
    json.dump({"testRunLink": "https://app.confident-ai.com/project/p0/evaluation/test-runs/r0/test-cases"}, f)
