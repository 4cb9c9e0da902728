#!/usr/bin/python3
"""advisor_ref.py writes advisor_values.json: reference values for the
tested rules of evalcal's advisor (advisor/judge.go, threshold.go), each
with its provenance (tool, version, call).

Run with Debian's python (python3-numpy, python3-scipy,
python3-statsmodels) from this directory:

    /usr/bin/python3 advisor_ref.py

What is checked, and how it is computed here (from the rules as
advisor/threshold.go's doc comments state them, not from the Go code):

  * The Wilson 95% intervals of the held-out and of light's own
    agreement: statsmodels' proportion_confint(method='wilson').
  * McNemar's exact p-value for verdict-level leniency: scipy's
    binomtest and statsmodels' mcnemar(exact=True), which must agree.
  * The threshold rule on four generated datasets: light's score
    x = min(runtime_fidelity, task_effectiveness); cuts (fail_below,
    pass_at) from the candidates {0, midpoints of consecutive distinct x,
    +inf}, fail_below <= pass_at < +inf, chosen by brute force over all
    pairs: most runs whose cut verdict equals deep's, then the smallest
    |fail_below - 40| + |pass_at - 70|, then the lowest pass_at, then the
    lowest fail_below. Folds: runs sorted by (SHA-256(id), id), dealt
    round-robin into 10. Held-out verdicts: cuts fitted on 9 folds applied
    to the 10th. The rule fires when held-out matches beat light's own
    and the exact McNemar p on (held-out right only, light right only) is
    below 0.05 (scipy binomtest).
"""
import hashlib
import itertools
import json
import os

import numpy as np
import scipy
import scipy.stats
import statsmodels
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__
NUMPY = "numpy " + np.__version__


def mcnemar_case(b, c):
    p = scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue
    sm = mcnemar([[50, b], [c, 50]], exact=True).pvalue
    assert abs(p - sm) <= 1e-12 * max(p, 1e-300), (b, c, p, sm)
    return {"b": b, "c": c, "p": float(p), "p_statsmodels": float(sm),
            "tool": SCIPY + "; " + STATSMODELS,
            "call": "scipy.stats.binomtest(%d, %d, 0.5).pvalue; mcnemar([[50, %d], [%d, 50]], exact=True).pvalue"
                    % (min(b, c), b + c, b, c)}


def verdict(x, fail_below, pass_at):
    if x >= pass_at:
        return "pass"
    if x >= fail_below:
        return "partial"
    return "fail"


def fit(xs, deep):
    vals = sorted(set(xs))
    cands = [0.0] + [(vals[i - 1] + vals[i]) / 2 for i in range(1, len(vals))] + [float("inf")]
    best = None
    for f, p in itertools.combinations_with_replacement(cands, 2):
        if p == float("inf"):
            continue
        m = sum(1 for x, d in zip(xs, deep) if verdict(x, f, p) == d)
        key = (-m, abs(f - 40) + abs(p - 70), p, f)
        if best is None or key < best[0]:
            best = (key, f, p, m)
    return best[1], best[2], best[3]


def folds(ids, k):
    order = sorted(range(len(ids)), key=lambda i: (hashlib.sha256(ids[i].encode()).digest(), ids[i]))
    out = [0] * len(ids)
    for r, i in enumerate(order):
        out[i] = r % k
    return out


def threshold_case(name, runs):
    ids = [r["id"] for r in runs]
    xs = [min(r["light_rf"], r["light_te"]) for r in runs]
    deep = [r["deep"] for r in runs]
    fo = folds(ids, 10)
    held = [None] * len(runs)
    for k in range(10):
        tx = [x for x, f in zip(xs, fo) if f != k]
        td = [d for d, f in zip(deep, fo) if f != k]
        fb, pa, _ = fit(tx, td)
        for i in range(len(runs)):
            if fo[i] == k:
                held[i] = verdict(xs[i], fb, pa)
    old = sum(1 for r in runs if r["light"] == r["deep"])
    new = sum(1 for h, d in zip(held, deep) if h == d)
    gained = sum(1 for r, h in zip(runs, held) if h == r["deep"] and r["light"] != r["deep"])
    lost = sum(1 for r, h in zip(runs, held) if h != r["deep"] and r["light"] == r["deep"])
    p = float(scipy.stats.binomtest(min(gained, lost), gained + lost, 0.5).pvalue) if gained + lost else 1.0
    fb, pa, m = fit(xs, deep)
    distinct = len(set(xs))
    fires = distinct >= 3 and distinct > len(set(r["light"] for r in runs)) and new > old and p < 0.05
    new_ci = proportion_confint(new, len(runs), alpha=0.05, method="wilson")
    old_ci = proportion_confint(old, len(runs), alpha=0.05, method="wilson")
    return {"name": name, "runs": runs, "fires": fires, "fail_below": fb, "pass_at": pa,
            "heldout_wilson95": [float(new_ci[0]), float(new_ci[1])],
            "light_wilson95": [float(old_ci[0]), float(old_ci[1])],
            "wilson_call": "statsmodels proportion_confint(k, n, alpha=0.05, method='wilson'), " + STATSMODELS,
            "fitted_matches": m, "heldout_matches": new, "light_matches": old,
            "gained": gained, "lost": lost, "p": p,
            "tool": SCIPY + "; " + NUMPY,
            "call": "brute-force cut search, 10 SHA-256 folds, scipy.stats.binomtest(min(gained, lost), gained + lost, 0.5).pvalue"}


def light_verdict(rf, te):
    m = min(rf, te)
    return "pass" if m >= 70 else ("fail" if m < 40 else "partial")


def generated(rng, n, kind):
    runs = []
    for i in range(n):
        x = rng.uniform(0, 100)
        rf = float(min(100, max(0, x + rng.normal(0, 3))))
        te = float(min(100, max(0, x + rng.normal(0, 3))))
        if kind == "integer":
            rf, te = float(round(rf)), float(round(te))
        if kind == "binary":
            rf = te = 100.0 if x >= 50 else 0.0
        q = x + rng.normal(0, 8)
        if kind == "optimal":
            d = light_verdict(rf, te)
        elif kind == "integer":
            d = "pass" if q >= 55 else "fail"
        else:
            d = "pass" if q >= 82 else ("fail" if q < 50 else "partial")
        runs.append({"id": "run-%04d" % i, "light_rf": rf, "light_te": te,
                     "light": light_verdict(rf, te), "deep": d})
    return runs


def main():
    rng = np.random.default_rng(20261201)
    out = {
        "about": "written by advisor_ref.py; see its docstring",
        "mcnemar": [mcnemar_case(b, c) for b, c in [(105, 66), (25, 5), (15, 15), (12, 5), (40, 18), (3, 0)]],
        "threshold": [
            threshold_case("continuous, deep stricter", generated(rng, 300, "continuous")),
            threshold_case("integer, deep binary", generated(rng, 200, "integer")),
            threshold_case("binary scores", generated(rng, 100, "binary")),
            threshold_case("light already optimal", generated(rng, 200, "optimal")),
        ],
    }
    with open(os.path.join(HERE, "advisor_values.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
