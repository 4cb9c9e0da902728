#!/usr/bin/python3
"""Reference values for equal-frequency bins that keep tied forecasts
together (statistician/murphy.go, EqualFrequencyBins), computed with numpy and
statsmodels independently of evalcal, from the rule as stated:

  m forecasts, k = min(bins, m), targets t_i = floor(m (i+1) / k), i < k.
  Sort the distinct values; with c_v the cumulative count up to and
  including value v and c_v- the count before it, a bin closes after v
  exactly when some target t has c_v- < t <= c_v.

(evalcal walks the values and advances a target pointer; this script tests
each value against every target with numpy, a different formulation.)

Cases: every binary case of testdata/reference/forecast/forecast_ref.json
(hand ten, steps of 0.05, continuous) at 4 and 10 bins, plus tie cases.

Run: /usr/bin/python3 statistician/testdata/reference/binning/binning_ref.py > statistician/testdata/reference/binning/binning_ref.json
"""
import json
import sys

import numpy as np
import statsmodels
from statsmodels.stats.proportion import proportion_confint

NP = "numpy " + np.__version__
SM = "statsmodels " + statsmodels.__version__


def bins_of(p, bins):
    n = len(p)
    k = min(bins, n)
    targets = (n * np.arange(1, k + 1)) // k
    vals, counts = np.unique(p, return_counts=True)
    cum = np.cumsum(counts)
    before = cum - counts
    closes = np.array([np.any((targets > a) & (targets <= b)) for a, b in zip(before, cum)])
    groups, start = [], 0
    for i in np.nonzero(closes)[0]:
        groups.append(vals[start:i + 1])
        start = i + 1
    assert start == len(vals)
    return [np.isin(p, g) for g in groups]


def binned(p, y, bins):
    n = len(p)
    o = y.mean()
    rel = res = wbv = wbc = 0.0
    table = []
    for m in bins_of(p, bins):
        pb, ob = p[m].mean(), y[m].mean()
        c = int(m.sum())
        rel += c * (pb - ob) ** 2
        res += c * (ob - o) ** 2
        wbv += np.sum((p[m] - pb) ** 2)
        wbc += 2 * np.sum((y[m] - ob) * (p[m] - pb))
        lo, hi = proportion_confint(int(y[m].sum()), c, alpha=0.05, method="wilson")
        table.append({"count": c, "lower": float(p[m].min()), "upper": float(p[m].max()),
                      "mean_forecast": float(pb), "observed_rate": float(ob),
                      "wilson_lower": float(lo), "wilson_upper": float(hi)})
    return {"bins": bins, "reliability": rel / n, "resolution": res / n, "uncertainty": o * (1 - o),
            "within_bin_variance": wbv / n, "within_bin_covariance": wbc / n, "table": table}


def case(name, p, y):
    p, y = np.asarray(p, float), np.asarray(y, int)
    return {"name": name, "p": p.tolist(), "y": y.tolist(),
            "binned": [binned(p, y, b) for b in (4, 10)]}


def main():
    ref = json.load(open("testdata/reference/forecast/forecast_ref.json"))
    cases = [case(c["name"], c["p"], c["y"]) for c in ref["binary"]]
    cases.append(case("hand seven (a tie across a target)", [0.5, 0.1, 0.5, 0.2, 0.5, 0.9, 0.3], [1, 0, 0, 0, 1, 1, 0]))
    cases.append(case("constant 0.6, n=50", [0.6] * 50, [1] * 30 + [0] * 20))
    rng = np.random.default_rng(20261201)
    p = np.concatenate([np.full(70, 0.3), np.round(rng.uniform(0, 1, 30), 2)])
    y = (rng.uniform(0, 1, 100) < p).astype(int)
    cases.append(case("one value holds 70 of 100", p, y))
    json.dump({"generator": "statistician/testdata/reference/binning/binning_ref.py",
               "source": NP + " (np.unique, cumsum, targets); Wilson: " + SM + " proportion_confint(method='wilson')",
               "python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=1)
    print()


main()
