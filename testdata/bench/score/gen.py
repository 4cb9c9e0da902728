#!/usr/bin/python3
"""Writes a large forecast JSONL file for the evalcal score benchmark.

usage: gen.py N OUT [SEED] [AGENTS] [DECIMALS]

N lines, AGENTS agents (default 50). With the defaults (50 agents, DECIMALS
2) it writes the original benchmark file: 90% binary forecasts in 0.01
steps with outcomes drawn from a per-agent distortion of the forecast (some
agents sharp, some overconfident, some noise), 10% three-way forecasts.

With DECIMALS given (2, 4, or "full" for the shortest repr of a float64, as
a model's probabilities are written), every line is a binary forecast, so
that the value distribution is the only thing that changes between files:
forecasts are Beta(2, 2) probabilities rounded to DECIMALS places, and the
outcome is drawn from the same per-agent distortion. Deterministic for a
seed.
"""
import json
import sys

import numpy as np


def original(n, out, seed):
    rng = np.random.default_rng(seed)
    agents = rng.integers(0, 50, n)
    kind = rng.uniform(0, 1, n) < 0.9
    p = np.round(rng.uniform(0, 1, n), 2)
    skill = np.linspace(-0.3, 1.0, 50)[agents]  # how much the forecast carries
    truth = np.clip(0.5 + skill * (p - 0.5), 0, 1)
    y = (rng.uniform(0, 1, n) < truth).astype(int)
    q = np.round(rng.dirichlet([2, 2, 2], n), 3)
    q[:, 2] = np.round(1 - q[:, 0] - q[:, 1], 3)
    cats = np.array(["down", "flat", "up"])
    o = np.array([rng.choice(3, p=np.clip(r, 0, 1) / np.clip(r, 0, 1).sum()) if not k else 0 for r, k in zip(q, kind)])
    with open(out, "w") as f:
        for i in range(n):
            a = "agent-%02d" % agents[i]
            at = "2026-11-%02dT%02d:00:00Z" % (1 + i % 28, i % 24)
            if kind[i]:
                f.write('{"id": "f%d", "agent": "%s", "confidence": %s, "outcome": %d, "at": "%s"}\n'
                        % (i, a, repr(float(p[i])), y[i], at))
            else:
                f.write('{"id": "f%d", "agent": "%s", "probs": %s, "outcome": "%s", "at": "%s"}\n'
                        % (i, a, json.dumps([float(x) for x in q[i]]), cats[o[i]], at))


def binary(n, out, seed, agents, decimals):
    rng = np.random.default_rng(seed)
    who = rng.integers(0, agents, n)
    p = rng.beta(2, 2, n)
    if decimals != "full":
        p = np.round(p, int(decimals))
    skill = np.linspace(-0.3, 1.0, agents)[who]
    truth = np.clip(0.5 + skill * (p - 0.5), 0, 1)
    y = (rng.uniform(0, 1, n) < truth).astype(int)
    with open(out, "w") as f:
        for i in range(n):
            at = "2026-11-%02dT%02d:00:00Z" % (1 + i % 28, i % 24)
            f.write('{"id": "f%d", "agent": "agent-%02d", "confidence": %s, "outcome": %d, "at": "%s"}\n'
                    % (i, who[i], repr(float(p[i])), y[i], at))


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    if len(sys.argv) > 4:
        agents = int(sys.argv[4])
        decimals = sys.argv[5] if len(sys.argv) > 5 else "2"
        binary(n, out, seed, agents, decimals)
    else:
        original(n, out, seed)


main()
