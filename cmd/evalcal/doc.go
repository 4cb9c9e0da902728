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
	evalcal render DOC|- [--format F]        write a saved document as markdown, html, json or yaml
	evalcal completion bash|zsh|fish|powershell
	evalcal version                          (or evalcal --version)
	evalcal help [COMMAND]                   (or evalcal COMMAND --help)

Flags go anywhere on the line, GNU style (--flag value, --flag=value, -o
FILE); single-dash long flags (-format json) still work with a
deprecation note. A mistyped command or flag gets a suggestion (exit 2).

Each command prints only the requested document on stdout, or writes it
atomically with -o FILE, whose extension (.yaml, .yml, .json, .md, .html)
picks the format unless --format is given; the output's directory is
checked, and an -o naming an input refused, before any work.
Diagnostics go to stderr, prefixed "evalcal:": every warning, bad line,
invalid run and failed inspection is summarised there (the count and the
first 5). run shows progress on stderr: a bar on a terminal, a plain line
every 10% or 30 s elsewhere, nothing with --quiet.

Gates: --require 'FIELD OP VALUE' (repeatable) on run, merge, score and
calls, for example 'agreement.lower >= 80', 'confidence >= medium',
'kappa.linear.lower >= 0.6', 'calibration >= 30',
'trend.agreement.lower > -5' (with --baseline). A gate on an interval uses
its bound, not the point estimate, unless the expression names the point.

Exit codes:

	0    ok
	1    the work failed: no run got both inspections, nothing to score
	     (score, calls, gate), or the document could not be written
	     (stdout closed)
	2    usage or input error, including insufficient-runs and homogeneous-sample
	3    a requested gate was not met (--require, --require-seals)
	130  interrupted (SIGINT, SIGTERM); finished inspections stay in the
	     cache when one is in use

The same inputs and flags give a byte-identical report whatever --jobs is.
The README holds the input and output formats and examples.
*/
package main
