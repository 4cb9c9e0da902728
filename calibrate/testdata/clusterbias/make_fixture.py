#!/usr/bin/python3
"""Writes runs.jsonl, the fixture of clusterbias_ref_test.go: 12 systems
named like models (uneven, 4 to 14 runs each), each run a light and a deep
inspection (saved-inspections lines). Deep's scores come from a
system-level quality (so runs of one system agree together); light's are
deep's plus noise, plus 9 points on runs of OpenAI-named systems (a planted
same-family leniency for an OpenAI judge) and minus 2.5 points per unit of
log length (light is harsher on long runs). Each run's metadata gives its
task (17 tasks across the systems), its output_length (the planted length,
which the summary's length follows, so the run's size does too) and, on
the even runs of mistral-large, llama-3-70b, gemini-1.5-pro and
claude-3-5-sonnet, model_family openai (routed to an OpenAI
model: same-family then varies within a system). Scores are integers, verdicts follow the README rule
(fail when a score is below 40, pass when both are at least 70).

/usr/bin/python3 make_fixture.py > runs.jsonl   (numpy seed 29)"""
import json
import sys

import numpy as np

rng = np.random.default_rng(29)
systems = [("gpt-4o", 14), ("gpt-4o-mini", 12), ("o3-mini", 10), ("claude-3-5-sonnet", 12), ("claude-3-haiku", 8),
           ("gemini-1.5-pro", 10), ("gemini-1.5-flash", 6), ("llama-3-70b", 9), ("mistral-large", 7),
           ("qwen-2-72b", 5), ("deepseek-v3", 4), ("grok-2", 5)]


def verdict(rf, te):
    if rf < 40 or te < 40:
        return "fail"
    if rf >= 70 and te >= 70:
        return "pass"
    return "partial"


def clip(x):
    return int(min(100, max(0, round(x))))


lines = []
for s, n in systems:
    quality = rng.uniform(35, 90)
    openai = s.startswith("gpt") or s.startswith("o3")
    for i in range(n):
        rid = f"{s}-{i:02d}"
        length = int(rng.lognormal(5, 0.8))
        deep = [clip(quality + rng.normal(0, 14)), clip(quality + rng.normal(0, 14))]
        shift = (9 if openai else 0) - 2.5 * (np.log(length) - 5)
        routed = s in ("mistral-large", "llama-3-70b", "gemini-1.5-pro", "claude-3-5-sonnet") and i % 2 == 0
        if routed:
            shift += 9
        light = [clip(d + shift + rng.normal(0, 8)) for d in deep]
        text = ("x" * length)
        md = {"task": f"task-{(3 * len(lines) // 2 + i) % 17:02d}", "output_length": length}
        if routed:
            md["model_family"] = "openai"
        for depth, sc in (("light", light), ("deep", deep)):
            lines.append({"cost": {"seconds": 0, "tokens": 0, "usd": 0}, "depth": depth, "flags": [], "run_id": rid, "metadata": md,
                          "runtime_fidelity": sc[0], "services": [], "summary": f"{depth} {text}", "system": s,
                          "task_effectiveness": sc[1], "verdict": verdict(*sc)})
for line in lines:
    sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")
