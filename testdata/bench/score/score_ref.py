#!/usr/bin/python3
"""Python reference for `evalcal score`: the same job with numpy,
scikit-learn and statsmodels, end to end (read JSONL, group by agent, Brier,
calibration, BSS, exact and equal-frequency binned Murphy (tied forecasts
kept in one bin) with Wilson intervals, CORP via IsotonicRegression, 1000-resample bootstrap of the BSS,
label, RPS for three-way forecasts), JSON out.

usage: score_ref.py FILE [OUT]
"""
import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss
from statsmodels.stats.proportion import proportion_confint

CATS = {"down": 0, "flat": 1, "up": 2}


def rps(probs, outcomes):
    f = np.cumsum(probs, axis=1)[:, :-1]
    o = (np.arange(probs.shape[1] - 1)[None, :] >= outcomes[:, None]).astype(float)
    return ((f - o) ** 2).sum(axis=1) / (probs.shape[1] - 1)


def score_binary(p, y, bins=10, resamples=1000, seed=1):
    n = len(p)
    bs = brier_score_loss(y, p)
    o = y.mean()
    unc = o * (1 - o)
    vals, inv = np.unique(p, return_inverse=True)
    nk = np.bincount(inv)
    ok = np.bincount(inv, weights=y) / nk
    rel = np.sum(nk * (vals - ok) ** 2) / n
    res = np.sum(nk * (ok - o) ** 2) / n
    # Equal-frequency bins that never split tied forecasts: targets
    # floor(n (i+1) / k); a bin closes after the first distinct value whose
    # cumulative count reaches or passes a target.
    k = min(bins, n)
    targets = (n * np.arange(1, k + 1)) // k
    cum = np.cumsum(nk)
    closes = np.searchsorted(targets, cum, side="right") > np.searchsorted(targets, cum - nk, side="right")
    bin_of_value = np.concatenate([[0], np.cumsum(closes)[:-1]])
    bin_of = bin_of_value[inv]
    order = np.argsort(bin_of, kind="stable")
    edges = np.searchsorted(bin_of[order], np.arange(bin_of.max() + 2))
    table = []
    for b in range(bin_of.max() + 1):
        g = order[edges[b]:edges[b + 1]]
        h = int(y[g].sum())
        lo, hi = proportion_confint(h, len(g), alpha=0.05, method="wilson")
        table.append({"count": len(g), "mean_forecast": float(p[g].mean()), "observed_rate": h / len(g),
                      "rate_ci95": [float(lo), float(hi)]})
    rc = IsotonicRegression(y_min=0, y_max=1).fit_transform(p, y)
    bsrc = np.mean((rc - y) ** 2)
    out = {"n": n, "brier": bs, "calibration": max(0.0, min(1.0, 1 - bs / 0.25)) * 100, "base_rate": o,
           "murphy": {"reliability": rel, "resolution": res, "uncertainty": unc},
           "binned": table, "corp": {"mcb": bs - bsrc, "dsc": unc - bsrc, "unc": unc}}
    if unc > 0:
        out["bss"] = 1 - bs / unc
        sq = (p - y) ** 2
        rng = np.random.default_rng(seed)
        boot = np.empty(resamples)
        for r in range(resamples):
            boot[r] = 1 - sq[rng.integers(0, n, n)].mean() / unc
        lo, hi = np.percentile(boot, [2.5, 97.5])
        out["bss_ci95"] = [lo, hi]
        supported = n >= 8 and lo > 0 and unc - bsrc > 0
    else:
        supported = False
    out["label"] = "candidate" if n < 8 else ("supported" if supported else "indistinguishable_from_luck")
    return out


def main():
    path = sys.argv[1]
    bp, by = defaultdict(list), defaultdict(list)
    op, oo = defaultdict(list), defaultdict(list)
    bad = 0
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                a = d["agent"]
                if "probs" in d:
                    op[a].append(d["probs"])
                    oo[a].append(CATS[d["outcome"]])
                else:
                    bp[a].append(float(d["confidence"]))
                    by[a].append(int(d["outcome"]))
            except (ValueError, KeyError, TypeError):
                bad += 1
    groups = []
    for a in sorted(set(bp) | set(op)):
        g = {"key": a}
        if a in bp:
            g.update(score_binary(np.array(bp[a]), np.array(by[a])))
        if a in op:
            q, o = np.array(op[a]), np.array(oo[a])
            r = rps(q, o)
            clim = np.bincount(o, minlength=q.shape[1]) / len(o)
            base = rps(np.tile(clim, (len(o), 1)), o).mean()
            g["rps"] = {"n": len(o), "mean": r.mean(), "baseline_rps": base,
                        "rpss": 1 - r.mean() / base if base > 0 else None}
        groups.append(g)
    out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
    json.dump({"groups": groups, "bad_lines": bad}, out, default=float)
    out.write("\n")


main()
