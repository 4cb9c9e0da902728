#!/usr/bin/python3
"""agreement_ref.py writes agreement_values.json: reference values for the
agreement half of evalcal's scoring core (statistician/), each with its
provenance (tool, version, exact call).

Run with Debian's python (scipy 1.10.1, statsmodels 0.13.5, numpy 1.24.2)
and R 4.2.2 with epiR (r-cran-epir) on PATH, from this directory:

    /usr/bin/python3 agreement_ref.py

The R values come from agreement_ref.R, which this script runs.
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import scipy
import scipy.stats
import statsmodels
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__
NUMPY = "numpy " + np.__version__


def val(value, tool, call):
    return {"value": float(value), "tool": tool, "call": call}


def datasets():
    rng = np.random.RandomState(20261130)
    d = {}
    d["n5"] = ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5.5])
    x = np.round(rng.normal(50, 10, 12), 2)
    d["n12_positive"] = (x, np.round(0.6 * x + rng.normal(0, 8, 12) + 20, 2))
    x = rng.randint(0, 5, 30).astype(float)
    d["n30_ties"] = (x, np.clip(x + rng.randint(-1, 2, 30), 0, 4).astype(float))
    x = np.round(rng.uniform(0, 1, 20), 3)
    d["n20_negative"] = (x, np.round(1 - x + rng.normal(0, 0.2, 20), 3))
    x = np.round(rng.normal(60, 15, 40), 1)
    d["n40_shifted"] = (x, np.round(x * 0.9 + 3 + rng.normal(0, 5, 40), 1))
    d["n8_scores"] = ([85, 70, 40, 55, 80, 20, 65, 75], [90, 60, 30, 50, 85, 10, 70, 60])
    return {k: ([float(v) for v in a], [float(v) for v in b]) for k, (a, b) in d.items()}


def run_r(data):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for name, (x, y) in data.items():
            f.write("%s|%s|%s\n" % (name, ",".join(repr(v) for v in x), ",".join(repr(v) for v in y)))
        path = f.name
    try:
        rver = subprocess.run(["Rscript", "-e", "cat(R.version.string)"], capture_output=True, text=True, check=True).stdout.strip()
        res = subprocess.run(["Rscript", os.path.join(HERE, "agreement_ref.R"), path], capture_output=True, text=True, check=True)
    finally:
        os.unlink(path)
    sections = {}
    for line in res.stdout.splitlines():
        section, name, field, value, call = line.split("|", 4)
        case = sections.setdefault(section, {}).setdefault(name, {})
        case[field] = val(float(value), rver, call)
    return sections


PROPORTIONS = [(18, 30), (0, 10), (10, 10), (1, 20), (7, 20), (45, 50), (3, 7), (150, 200)]
NEWCOMBE = [(56, 70, 48, 80), (9, 10, 3, 10), (6, 7, 2, 7), (5, 56, 0, 29), (0, 10, 0, 20), (10, 10, 0, 20), (1, 3, 2, 2)]
TABLES = {
    # rows: light verdict fail/partial/pass; columns: deep verdict.
    "verdicts_3x3": [[12, 3, 1], [4, 15, 5], [0, 6, 20]],
    "skewed_3x3": [[2, 1, 0], [1, 5, 2], [0, 4, 40]],
    "disagree_3x3": [[1, 5, 9], [6, 2, 4], [8, 5, 1]],
    "perfect_3x3": [[5, 0, 0], [0, 7, 0], [0, 0, 3]],
    "fleiss_2x2": [[40, 9], [6, 45]],
    "ordinal_4x4": [[10, 4, 1, 0], [3, 12, 5, 1], [0, 4, 9, 3], [1, 0, 2, 11]],
    "empty_row_3x3": [[0, 0, 0], [3, 10, 2], [1, 4, 12]],
}


def main():
    data = datasets()
    out = {
        "about": "Reference values for statistician's agreement functions; regenerate with /usr/bin/python3 agreement_ref.py. Each value carries its tool, version and exact call.",
        "datasets": {k: {"x": x, "y": y} for k, (x, y) in data.items()},
    }

    wil = []
    for x, n in PROPORTIONS:
        for alpha in (0.05, 0.10):
            call = "proportion_confint(%d, %d, alpha=%g, method='wilson')" % (x, n, alpha)
            lo, hi = proportion_confint(x, n, alpha=alpha, method="wilson")
            wil.append({"x": x, "n": n, "level": 1 - alpha, "lower": val(lo, STATSMODELS, call), "upper": val(hi, STATSMODELS, call)})
    out["wilson"] = wil

    cp = []
    for x, n in PROPORTIONS:
        for alpha in (0.05, 0.10):
            call = "proportion_confint(%d, %d, alpha=%g, method='beta')" % (x, n, alpha)
            lo, hi = proportion_confint(x, n, alpha=alpha, method="beta")
            cp.append({"x": x, "n": n, "level": round(1 - alpha, 2), "lower": val(lo, STATSMODELS, call), "upper": val(hi, STATSMODELS, call)})
    out["clopper_pearson"] = cp

    nc = []
    for x1, n1, x2, n2 in NEWCOMBE:
        call = "confint_proportions_2indep(%d, %d, %d, %d, method='newcomb', compare='diff', alpha=0.05)" % (x1, n1, x2, n2)
        lo, hi = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff", alpha=0.05)
        nc.append({"x1": x1, "n1": n1, "x2": x2, "n2": n2, "lower": val(lo, STATSMODELS, call), "upper": val(hi, STATSMODELS, call)})
    out["newcombe"] = nc

    pear, spear = [], []
    for name, (x, y) in data.items():
        call = "scipy.stats.pearsonr(x, y)"
        res = scipy.stats.pearsonr(x, y)
        ci = res.confidence_interval(0.95)
        pear.append({"name": name, "r": val(res.statistic, SCIPY, call), "p": val(res.pvalue, SCIPY, call),
                     "lower": val(ci.low, SCIPY, call + ".confidence_interval(0.95)"),
                     "upper": val(ci.high, SCIPY, call + ".confidence_interval(0.95)")})
        call = "scipy.stats.spearmanr(x, y)"
        rho, p = scipy.stats.spearmanr(x, y)
        spear.append({"name": name, "rho": val(rho, SCIPY, call), "p": val(p, SCIPY, call)})
    out["pearson_scipy"] = pear
    out["spearman_scipy"] = spear

    kap = []
    for name, table in TABLES.items():
        for wt in (None, "linear", "quadratic"):
            call = "cohens_kappa(np.array(%s), wt=%r)" % (table, wt)
            res = cohens_kappa(np.array(table, dtype=float), wt=wt)
            kap.append({"name": name, "table": table, "weighting": wt or "unweighted",
                        "kappa": val(res.kappa, STATSMODELS, call + ".kappa"),
                        "se": val(res.std_kappa, STATSMODELS, call + ".std_kappa")})
    out["cohen_kappa"] = kap

    sample = [float(v) for v in np.round(np.random.RandomState(7).normal(0, 1, 23), 4)]
    qs = []
    for q in (0, 2.5, 5, 25, 50, 90, 97.5, 100):
        call = "numpy.percentile(sample, %g) (method='linear', type 7)" % q
        qs.append({"p": q / 100, "q": val(np.percentile(sample, q), NUMPY, call)})
    out["quantile_type7"] = {"sample": sample, "quantiles": qs}

    out["r"] = run_r(data)
    with open(os.path.join(HERE, "agreement_values.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
