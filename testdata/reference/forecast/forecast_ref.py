#!/usr/bin/python3
"""Reference values for evalcal's forecast scoring core (statistician/brier.go,
murphy.go, corp.go, rps.go), computed independently of evalcal with numpy,
scikit-learn and statsmodels (Debian python3 packages).

Run: /usr/bin/python3 testdata/reference/forecast/forecast_ref.py > testdata/reference/forecast/forecast_ref.json

Every value carries its provenance ("source") beside it.
"""
import json
import sys

import numpy as np
import sklearn
import statsmodels
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss
from statsmodels.stats.proportion import proportion_confint

SK = "sklearn " + sklearn.__version__
NP = "numpy " + np.__version__
SM = "statsmodels " + statsmodels.__version__


def v(value, source):
    return {"value": float(value), "source": source}


def murphy_exact(p, y):
    n = len(p)
    o = y.mean()
    rel = res = 0.0
    for pk in np.unique(p):
        m = p == pk
        nk, ok = m.sum(), y[m].mean()
        rel += nk * (pk - ok) ** 2
        res += nk * (ok - o) ** 2
    return rel / n, res / n, o * (1 - o)


def corp(p, y):
    # sklearn's IsotonicRegression pools tied X values first (weighted mean of y).
    rc = IsotonicRegression(y_min=0, y_max=1, increasing=True).fit_transform(p, y)
    bs = brier_score_loss(y, p)
    bsrc = np.mean((rc - y) ** 2)
    o = y.mean()
    unc = np.mean((o - y) ** 2)
    return bs - bsrc, unc - bsrc, unc


def binned(p, y, bins, method):
    n = len(p)
    if method == "fixed":
        idx = np.minimum(np.floor(p * bins).astype(int), bins - 1)
        groups = [np.where(idx == b)[0] for b in range(bins)]
    else:
        k = min(bins, n)
        order = np.argsort(p, kind="stable")
        groups = [order[(n * b) // k:(n * (b + 1)) // k] for b in range(k)]
    o = y.mean()
    rel = res = wbv = wbc = 0.0
    table = []
    for g in groups:
        if len(g) == 0:
            table.append({"count": 0})
            continue
        pb, ob = p[g].mean(), y[g].mean()
        rel += len(g) * (pb - ob) ** 2
        res += len(g) * (ob - o) ** 2
        wbv += np.sum((p[g] - pb) ** 2)
        wbc += 2 * np.sum((y[g] - ob) * (p[g] - pb))
        lo, hi = proportion_confint(int(y[g].sum()), len(g), alpha=0.05, method="wilson")
        table.append({"count": int(len(g)), "mean_forecast": float(pb), "observed_rate": float(ob),
                      "wilson_lower": float(lo), "wilson_upper": float(hi)})
    src = NP + " (Stephenson et al. 2008 terms); Wilson: " + SM + " proportion_confint(method='wilson')"
    return {"reliability": v(rel / n, src), "resolution": v(res / n, src),
            "uncertainty": v(o * (1 - o), src), "within_bin_variance": v(wbv / n, src),
            "within_bin_covariance": v(wbc / n, src), "table": table, "source": src}


def binary_case(name, p, y):
    p, y = np.asarray(p, float), np.asarray(y, int)
    rel, res, unc = murphy_exact(p, y)
    mcb, dsc, cunc = corp(p, y)
    src_m = NP + " loop over np.unique(p)"
    src_c = SK + " IsotonicRegression + brier_score_loss"
    return {
        "name": name, "p": p.tolist(), "y": y.tolist(),
        "brier": v(brier_score_loss(y, p), SK + " brier_score_loss"),
        "murphy": {"reliability": v(rel, src_m), "resolution": v(res, src_m), "uncertainty": v(unc, src_m)},
        "corp": {"mcb": v(mcb, src_c), "dsc": v(dsc, src_c), "unc": v(cunc, src_c)},
        "binned_fixed_10": binned(p, y, 10, "fixed"),
    }


def rps_one(probs, outcome):
    f = np.cumsum(probs)[:-1]
    o = (np.arange(len(probs) - 1) >= outcome).astype(float)
    return np.sum((f - o) ** 2) / (len(probs) - 1)


def rps_case(name, probs, outcomes, baseline):
    probs = np.asarray(probs, float)
    scores = [rps_one(q, o) for q, o in zip(probs, outcomes)]
    base = [rps_one(np.asarray(baseline, float), o) for o in outcomes]
    src = NP + " cumsum, normalised by K-1"
    return {"name": name, "probs": probs.tolist(), "outcomes": list(outcomes), "baseline": list(baseline),
            "mean_rps": v(np.mean(scores), src), "baseline_rps": v(np.mean(base), src),
            "rpss": v(1 - np.mean(scores) / np.mean(base), src)}


def main():
    rng = np.random.default_rng(20261130)
    cases = [binary_case("hand ten", [0.1, 0.4, 0.35, 0.8, 0.7, 0.7, 0.2, 0.9, 0.55, 0.3],
                         [0, 0, 1, 1, 1, 0, 0, 1, 1, 0])]
    # Forecasts in 0.05 steps (many ties), outcomes from a miscalibrated truth.
    p = np.round(rng.uniform(0, 1, 500) * 20) / 20
    y = (rng.uniform(0, 1, 500) < p ** 1.4).astype(int)
    cases.append(binary_case("steps of 0.05, n=500", p, y))
    # Continuous forecasts: every value distinct.
    p = rng.beta(2, 3, 300)
    y = (rng.uniform(0, 1, 300) < 0.15 + 0.7 * p).astype(int)
    cases.append(binary_case("continuous beta(2,3), n=300", p, y))
    rps = [rps_case("three-way hand", [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0, 0, 1], [1 / 3, 1 / 3, 1 / 3]],
                    [2, 0, 1, 0, 2], [0.3, 0.4, 0.3])]
    q = rng.dirichlet([1, 1, 1, 1], 200)
    rps.append(rps_case("four-way dirichlet, n=200", q, [int(rng.choice(4, p=r)) for r in q], [0.25, 0.25, 0.25, 0.25]))
    json.dump({"generator": "testdata/reference/forecast/forecast_ref.py",
               "tools": [NP, SK, SM, "python " + sys.version.split()[0]],
               "binary": cases, "rps": rps}, sys.stdout, indent=1)
    print()


main()
