#!/usr/bin/python3
"""drift_ref.py writes drift_values.json: reference values for the paired
statistics of evalcal's drift check (drift.CompareSide), each with its
provenance (tool, version, exact call), on anchor sets this script draws
(seeded) and writes into the same file.

Run with Debian's python (scipy 1.10.1, statsmodels 0.13.5, numpy 1.24.2),
from this directory:

    /usr/bin/python3 drift_ref.py

Newcombe's interval for paired proportions (Newcombe 1998, Stat. Med.
17:2635-2650, method 10) is in neither scipy nor statsmodels: it is
written here from the paper in numpy, independently of the Go code, and
its coverage is checked by simulation below (printed, and recorded).
"""
import json
import os

import numpy as np
import scipy
import scipy.stats
import statsmodels
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__
NUMPY = "numpy " + np.__version__
VERDICTS = ["fail", "partial", "pass"]


def val(value, tool, call):
    return {"value": float(value), "tool": tool, "call": call}


def draw(rng, n, flip, lenient, deep_share):
    """An anchor set of n runs: then/now verdicts (indices into VERDICTS),
    scores, and deep labels on a share of the runs."""
    then = rng.choice(3, size=n, p=[0.35, 0.2, 0.45])
    now = then.copy()
    noisy = rng.random(n) < flip
    now[noisy] = rng.choice(3, size=int(noisy.sum()))
    turn = (rng.random(n) < lenient) & (now != 2)
    now[turn] = 2
    rf_then = np.round(rng.uniform(0, 100, n), 1)
    te_then = np.round(rng.uniform(0, 100, n), 1)
    rf_now = np.clip(np.round(rf_then + rng.normal(1.5, 4, n), 1), 0, 100)
    te_now = np.clip(np.round(te_then + rng.normal(-0.5, 6, n), 1), 0, 100)
    deep = np.where(rng.random(n) < deep_share, np.where(rng.random(n) < 0.8, then, rng.choice(3, size=n)), -1)
    return then, now, rf_then, te_then, rf_now, te_now, deep


def newcombe_paired(a, b, c, d, z):
    """p2 - p1 with p1 = (a+b)/n, p2 = (a+c)/n: Newcombe (1998) method 10."""
    n = a + b + c + d

    def wilson(x):
        p = x / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z / den * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return p, max(0.0, centre - half), min(1.0, centre + half)

    p1, l1, u1 = wilson(a + b)
    p2, l2, u2 = wilson(a + c)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = 0.0 if den == 0 else (a * d - b * c) / np.sqrt(den)
    diff = p2 - p1
    lo = diff - np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    hi = diff + np.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return diff, max(-1.0, lo), min(1.0, hi)


def coverage(rng, n, probs, z, reps):
    """Share of reps whose interval holds the true p2 - p1 for cell
    probabilities probs = (both, first only, second only, neither)."""
    truth = probs[2] - probs[1]
    hits = 0
    for cells in rng.multinomial(n, probs, size=reps):
        _, lo, hi = newcombe_paired(*[int(x) for x in cells], z)
        hits += lo <= truth <= hi
    return hits / reps


def case(name, rng, n, flip, lenient, deep_share, alpha):
    then, now, rf_t, te_t, rf_n, te_n, deep = draw(rng, n, flip, lenient, deep_share)
    out = {"name": name, "alpha": alpha,
           "then": [VERDICTS[v] for v in then], "now": [VERDICTS[v] for v in now],
           "rf_then": rf_t.tolist(), "te_then": te_t.tolist(), "rf_now": rf_n.tolist(), "te_now": te_n.tolist(),
           "deep": [VERDICTS[v] if v >= 0 else "" for v in deep]}
    level = 1 - alpha
    z = scipy.stats.norm.ppf(1 - alpha / 2)
    pass_then, pass_now = then == 2, now == 2
    to_pass = int(np.sum(~pass_then & pass_now))
    to_not = int(np.sum(pass_then & ~pass_now))
    flips = to_pass + to_not
    call = "proportion_confint(%d, %d, alpha=%g, method='wilson')" % (flips, n, alpha)
    lo, hi = proportion_confint(flips, n, alpha=alpha, method="wilson")
    out["flip_lower"], out["flip_upper"] = val(lo, STATSMODELS, call), val(hi, STATSMODELS, call)
    table = [[int(np.sum(pass_then & pass_now)), to_not], [to_pass, int(np.sum(~pass_then & ~pass_now))]]
    call = "mcnemar(%s, exact=True).pvalue" % table
    out["mcnemar_p"] = val(mcnemar(table, exact=True).pvalue, STATSMODELS, call)
    if flips > 0:
        call = "binomtest(%d, %d, 0.5).pvalue" % (to_pass, flips)
        out["binomtest_p"] = val(scipy.stats.binomtest(to_pass, flips, 0.5).pvalue, SCIPY, call)
    conf = np.zeros((3, 3))
    for t, w in zip(then, now):
        conf[t, w] += 1
    call = "cohens_kappa(%s, wt='linear')" % conf.astype(int).tolist()
    k = cohens_kappa(conf, wt="linear")
    out["kappa"], out["kappa_se"] = val(k.kappa, STATSMODELS, call + ".kappa"), val(k.std_kappa, STATSMODELS, call + ".std_kappa")
    for key, a, b in (("rf", rf_t, rf_n), ("te", te_t, te_n)):
        d = b - a
        res = scipy.stats.ttest_rel(b, a)
        call = "ttest_rel(now, then).confidence_interval(%g)" % level
        ci = res.confidence_interval(level)
        out[key + "_mean"] = val(np.mean(d), NUMPY, "numpy.mean(now - then)")
        out[key + "_lower"], out[key + "_upper"] = val(ci.low, SCIPY, call), val(ci.high, SCIPY, call)
    has = deep >= 0
    if has.any():
        agree_then, agree_now = (then == deep) & has, (now == deep) & has
        cells = [int(np.sum(agree_then & agree_now)), int(np.sum(agree_then & ~agree_now & has)),
                 int(np.sum(~agree_then & agree_now & has)), int(np.sum(~agree_then & ~agree_now & has))]
        diff, lo, hi = newcombe_paired(*cells, z)
        call = "newcombe_paired(%d, %d, %d, %d, z=%r) (Newcombe 1998 method 10, this script)" % (*cells, z)
        out["agreement_cells"] = cells
        out["agreement_change"] = val(diff, NUMPY, call)
        out["agreement_lower"], out["agreement_upper"] = val(lo, NUMPY, call), val(hi, NUMPY, call)
    return out


def main():
    rng = np.random.default_rng(20261202)
    cases = [
        case("n300_lenient", rng, 300, 0.04, 0.05, 1.0, 0.05),
        case("n300_stable", rng, 300, 0.03, 0.0, 0.5, 0.05),
        case("n60_noisy", rng, 60, 0.25, 0.0, 0.7, 0.10),
        case("n25_strict", rng, 25, 0.3, 0.0, 1.0, 0.05),
        case("n40_no_deep", rng, 40, 0.1, 0.1, 0.0, 0.05),
    ]
    tables = [(12, 5, 9, 18), (30, 0, 0, 0), (0, 3, 0, 7), (20, 1, 6, 3), (140, 10, 2, 148), (0, 0, 0, 5), (3, 4, 5, 6)]
    paired = []
    for cells in tables:
        for level in (0.95, 0.99):
            z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
            diff, lo, hi = newcombe_paired(*cells, z)
            call = "newcombe_paired(%d, %d, %d, %d, z=norm.ppf(%g)) (Newcombe 1998 method 10, this script)" % (*cells, 1 - (1 - level) / 2)
            paired.append({"cells": list(cells), "level": level, "change": val(diff, NUMPY, call),
                           "lower": val(lo, NUMPY, call), "upper": val(hi, NUMPY, call)})
    sim = np.random.default_rng(7)
    cov = []
    for n, probs in ((50, (0.6, 0.1, 0.05, 0.25)), (300, (0.7, 0.08, 0.02, 0.2)), (30, (0.45, 0.05, 0.05, 0.45))):
        c = coverage(sim, n, probs, scipy.stats.norm.ppf(0.975), 4000)
        cov.append({"n": n, "probs": list(probs), "coverage_95": c})
        print("Newcombe paired 95%% interval, n=%d, cells %s: coverage %.4f over 4000 tables" % (n, probs, c))
    out = {
        "about": "Reference values for drift.CompareSide and statistician.NewcombePairedDifference; regenerate with /usr/bin/python3 drift_ref.py. Each value carries its tool, version and exact call.",
        "cases": cases,
        "newcombe_paired": paired,
        "newcombe_paired_coverage": cov,
    }
    with open(os.path.join(HERE, "drift_values.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
