#!/usr/bin/python3
"""clopper_ref.py writes clopper_values.json: reference values for the
one-sided Clopper-Pearson lower bound of evalcal's scoring core
(statistician/clopper_lower.go), each with its provenance.

Run with Debian's python3-scipy from this directory:

    /usr/bin/python3 clopper_ref.py

Three tables:
  lower:    scipy.stats.binomtest(x, n, alternative='greater')
            .proportion_ci(confidence_level=1-risk, method='exact').low
  trials:   the fewest n with binomtest(n, n, target, alternative='greater')
            .pvalue <= risk (an n-for-n record rejects p <= target), by scan
  plan:     the smallest n such that the lower bound of floor(rate m)
            successes out of m reaches target for every m from n up to
            a scan limit (5 times the answer, at least 2,000), by a brute
            force scan with scipy.stats.beta.ppf
"""
import json
import math
import os

import numpy as np
import scipy
import scipy.stats

HERE = os.path.dirname(os.path.abspath(__file__))
SCIPY = "scipy " + scipy.__version__


def lower_cases():
    cases = []
    for n in (1, 2, 5, 10, 11, 22, 30, 45, 100, 250, 1000, 12345):
        for x in sorted({0, 1, n // 2, (9 * n) // 10, n - 1, n}):
            if 0 <= x <= n:
                for risk in (0.1, 0.05, 0.01, 0.2):
                    cases.append((x, n, risk))
    out = []
    for x, n, risk in cases:
        ci = scipy.stats.binomtest(x, n, alternative="greater").proportion_ci(confidence_level=1 - risk, method="exact")
        out.append({
            "x": x, "n": n, "risk": risk, "lower": float(ci.low), "tool": SCIPY,
            "call": "binomtest(%d, %d, alternative='greater').proportion_ci(confidence_level=%r, method='exact').low" % (x, n, 1 - risk),
        })
    return out


def trials_cases():
    out = []
    for target in (0.5, 0.8, 0.9, 0.95, 0.99):
        for risk in (0.2, 0.1, 0.05, 0.01):
            n = 1
            while scipy.stats.binomtest(n, n, target, alternative="greater").pvalue > risk:
                n += 1
            out.append({
                "target": target, "risk": risk, "n": n, "tool": SCIPY,
                "call": "smallest n with binomtest(n, n, %r, alternative='greater').pvalue <= %r" % (target, risk),
            })
    return out


def plan_case(rate, target, risk):
    limit = 2000
    while True:
        m = np.arange(1, limit + 1)
        x = np.floor(rate * m + 1e-9)
        lower = np.where(x > 0, scipy.stats.beta.ppf(risk, np.maximum(x, 1), m - x + 1), 0.0)
        ok = lower >= target
        if not ok.any():
            limit *= 4
            continue
        failing = np.nonzero(~ok)[0]
        n = int(failing[-1]) + 2 if len(failing) else 1
        if 5 * n <= limit:
            return n, float(lower[n - 1])
        limit = 5 * n


def plan_cases():
    out = []
    for rate, target, risk in ((1.0, 0.9, 0.1), (0.95, 0.9, 0.1), (0.9, 0.8, 0.1), (0.97, 0.95, 0.05),
                               (0.85, 0.8, 0.2), (0.99, 0.95, 0.01), (0.6, 0.5, 0.1), (0.93, 0.9, 0.1)):
        n, achieved = plan_case(rate, target, risk)
        out.append({
            "rate": rate, "target": target, "risk": risk, "n": n, "achieved": achieved, "tool": SCIPY + ", numpy " + np.__version__,
            "call": "brute force: smallest n with beta.ppf(%r, x, m-x+1) >= %r for x = floor(%r m) and every m from n to 5n" % (risk, target, rate),
        })
    return out


def main():
    doc = {"lower": lower_cases(), "trials": trials_cases(), "plan": plan_cases()}
    with open(os.path.join(HERE, "clopper_values.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
