package main

import "github.com/rubricgate/rubricgate/internal/cliflag"

// The flag groups of -h. A flag no group claims is listed under the
// command's Rest title, so a new flag shows up without an edit here.
var (
	inputFlags  = cliflag.Group{Title: "inputs", Names: []string{"rubric", "results", "format", "input", "out", "reviewers", "report"}}
	outputFlags = cliflag.Group{Title: "outputs", Names: []string{"json", "markdown", "junit", "items", "title", "o"},
		Prefixes: []string{"comment", "github-token"}}
	decisionFlags = cliflag.Group{Title: "decision", Names: []string{"max-drop", "noisy-drop", "hard-drop", "max-drift", "max-unscored",
		"on-rubric-change", "accept", "accept-label", "accept-by"}}
	baselineFlags = cliflag.Group{Title: "baseline", Names: []string{"write-baseline", "if-no-baseline", "on-baseline-error", "max-baseline-age",
		"max-archive", "branch"}, Prefixes: []string{"baseline"}}
	judgeFlags = cliflag.Group{Title: "judge (with --input) and rollout tiers", Names: []string{"samples", "safety-confirm", "concurrency",
		"max-cost", "tier", "tiers", "min-agreement", "calibration", "production-model", "same-family"}, Prefixes: []string{"judge-"}}
)

// helps are the commands' -h texts.
var helps = map[string]*cliflag.Help{
	"score": {
		Summary: "rubricgate score: score an eval run against a rubric and print the per-criterion table (no baseline, no comment).",
		Usage:   "rubricgate score --rubric R --results F [F...] [flags]",
		Groups:  []cliflag.Group{inputFlags, decisionFlags, outputFlags},
		Example: "rubricgate score --rubric rubric.yaml --results run.jsonl --json report.json",
	},
	"gate": {
		Summary: "rubricgate gate: score a run, compare it with the last passing baseline, and pass (0) or block (1); 2 is an error, 3 asks for a re-run (noisy-drop rerun).",
		Usage:   "rubricgate gate --rubric R --results F [F...] [flags]",
		Groups:  []cliflag.Group{inputFlags, decisionFlags, baselineFlags, outputFlags, judgeFlags},
		Example: "rubricgate gate --rubric rubric.yaml --results run.jsonl --max-drop 2% --json report.json",
	},
	"judge": {
		Summary: "rubricgate judge: have an LLM judge score an answers file against the rubric, writing results that score and gate read.",
		Usage:   "rubricgate judge --rubric R --input ANSWERS --out RESULTS --model M [flags]",
		Groups:  []cliflag.Group{inputFlags},
		Rest:    "judge",
		Example: "rubricgate judge --rubric rubric.yaml --input answers.jsonl --out results.jsonl --model gpt-4o-mini",
	},
	"comment": {
		Summary: "rubricgate comment: post a gate report another job made as the pull request's sticky comment (the fork-safe workflow_run pattern).",
		Usage:   "rubricgate comment --report REPORT.json [flags]",
		Groups:  []cliflag.Group{inputFlags, outputFlags},
		Example: "rubricgate comment --report report.json --github-token \"$GITHUB_TOKEN\"",
	},
	"calibrate": {
		Summary: "rubricgate calibrate: measure how far the judge agrees with human scores (or two reviewers with each other), per criterion.",
		Usage:   "rubricgate calibrate --rubric R [flags] HUMAN JUDGE\n  rubricgate calibrate --rubric R --reviewers SHEET [flags]",
		Groups:  []cliflag.Group{inputFlags, outputFlags},
		Rest:    "agreement",
		Example: "rubricgate calibrate --rubric rubric.yaml human.csv judged.jsonl --min-agreement 0.8",
	},
	"rubric validate": {
		Summary: "rubricgate rubric validate: check a rubric file and print its name, criteria count, warnings and hash.",
		Usage:   "rubricgate rubric validate R",
		Example: "rubricgate rubric validate rubric.yaml",
	},
	"rubric export": {
		Summary: "rubricgate rubric export: write a rubric as JSON, a blank CSV review sheet or an LLM-judge prompt.",
		Usage:   "rubricgate rubric export --format json|csv|prompt [-o FILE] R",
		Example: "rubricgate rubric export --format csv -o sheet.csv rubric.yaml",
	},
	"init": {
		Summary: "rubricgate init: write a minimal rubric, an example results file and the GitHub Actions workflows (pull request and baseline), keep the local baseline store out of git, then run the gate on them as a trial.",
		Usage:   "rubricgate init [--dir DIR] [--branch BRANCH]",
		Example: "rubricgate init && rubricgate gate --rubric rubric.yaml --results evals/results.jsonl",
	},
}
