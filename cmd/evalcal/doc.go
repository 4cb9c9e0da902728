/*
Evalcal answers one question for teams that run AI agents: can we trust the
cheap eval? It calls an inspector at a fast light depth and a thorough deep
depth on completed runs, compares the verdicts run by run, and computes,
deterministically, how often light agrees with deep, how sure that figure
is, which way light is biased, which runs disagree and why, and what to
change in the light eval. The same scoring core scores agents' probability
forecasts, resolves trading calls against prices, and gates self-learned
lessons on held-out evidence.

Usage:

	evalcal run [flags] PATH...              calibrate light against deep on run directories
	evalcal run [flags] --inspections FILE   ... or on saved inspections (JSONL)
	evalcal merge [flags] SHARD_REPORT...    recombine the reports of run --shard i/n exactly
	evalcal score [flags] FILE|-             score probability forecasts (JSONL)
	evalcal score [flags] --sqlite DB        ... or an agent's task_prediction_log
	evalcal calls --calls F --prices F       resolve trading calls and score their confidence
	evalcal gate --events F [--history F]    decide candidate lessons on held-out outcomes
	evalcal render DOC --format F            write a saved document as markdown, html, json or yaml
	evalcal version

Each command prints only the requested document on stdout, or writes it
atomically with -o FILE; diagnostics and progress go to stderr, prefixed
"evalcal:". Run a command with -h for its flags.

Gates: --require 'FIELD OP VALUE' (repeatable) on run, merge, score and
calls, for example 'agreement.lower >= 80', 'confidence >= medium',
'kappa.linear.lower >= 0.6', 'calibration >= 30',
'trend.agreement.lower > -5' (with --baseline). A gate on an interval uses
its bound, not the point estimate, unless the expression names the point.

Exit codes:

	0    ok
	1    the work failed (for example, no run got both inspections)
	2    usage or input error, including insufficient-runs and homogeneous-sample
	3    a requested gate was not met (--require, --require-seals)
	130  interrupted; finished inspections stay in the cache

The same inputs and flags give a byte-identical report whatever --jobs is.
The README holds the input and output formats and examples.
*/
package main
