#!/usr/bin/python3
"""Reference values of the ranking document (rank/reference_test.go).

Run from the repository root:  /usr/bin/python3 rank/testdata/reference.py > rank/testdata/reference.json

Independent of evalcal's Go code: Debian 12's scipy 1.10.1 and statsmodels
0.13.5. For every data set (seeded numpy draws of verdicts 0 = fail,
1 = partial, 2 = pass for deep and for each candidate):
  - agreement Wilson 95%: statsmodels.stats.proportion.proportion_confint(matches, n, alpha=0.05, method="wilson")
  - linear kappa and its interval: statsmodels.stats.inter_rater.cohens_kappa(table, wt="linear")
    (table rows = candidate verdict, columns = deep verdict), .kappa, .std_kappa, .kappa_low, .kappa_upp
  - leniency p: scipy.stats.binomtest(b, b + c, 0.5).pvalue, b = candidate pass & deep not, c = the reverse
  - pairwise p: scipy.stats.binomtest(a_only, a_only + b_only, 0.5).pvalue over the runs where exactly one
    of the two candidates agrees with deep; Holm: statsmodels.stats.multitest.multipletests(p, method="holm")[1]
    over all pairs in the order (i, j), i < j, of the candidates as listed here.
"""
import json
import sys

import numpy as np
import scipy
import statsmodels
from scipy.stats import binomtest
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint


def candidate(rng, deep, accuracy, lenient):
    out = deep.copy()
    for i in range(len(deep)):
        if rng.random() > accuracy:
            if lenient and rng.random() < 0.7:
                out[i] = 2 if deep[i] != 2 else rng.integers(0, 2)
            else:
                out[i] = (deep[i] + rng.integers(1, 3)) % 3
    return out


def dataset(seed, n, specs):
    rng = np.random.default_rng(seed)
    deep = rng.choice(3, size=n, p=[0.35, 0.15, 0.5])
    cands = []
    for name, acc, lenient in specs:
        light = candidate(rng, deep, acc, lenient)
        m = int((light == deep).sum())
        lo, hi = proportion_confint(m, n, alpha=0.05, method="wilson")
        table = np.zeros((3, 3))
        for l, d in zip(light, deep):
            table[l, d] += 1
        k = cohens_kappa(table, wt="linear")
        b = int(((light == 2) & (deep != 2)).sum())
        c = int(((deep == 2) & (light != 2)).sum())
        p = binomtest(b, b + c, 0.5).pvalue if b + c > 0 else 1.0
        cands.append({
            "name": name, "light": "".join(map(str, light)),
            "matches": m, "wilson95": [100 * lo, 100 * hi],
            "kappa": float(k.kappa), "kappa_se": float(k.std_kappa),
            "kappa_ci": [float(k.kappa_low), float(k.kappa_upp)],
            "light_pass_deep_not": b, "deep_pass_light_not": c, "leniency_p": float(p),
        })
    pairs, ps = [], []
    for i in range(len(cands)):
        for j in range(i + 1, len(cands)):
            li = np.array(list(map(int, cands[i]["light"])))
            lj = np.array(list(map(int, cands[j]["light"])))
            a_only = int(((li == deep) & (lj != deep)).sum())
            b_only = int(((lj == deep) & (li != deep)).sum())
            p = binomtest(a_only, a_only + b_only, 0.5).pvalue if a_only + b_only > 0 else 1.0
            pairs.append({"a": cands[i]["name"], "b": cands[j]["name"], "a_only": a_only, "b_only": b_only, "p": float(p)})
            ps.append(p)
    for pair, h in zip(pairs, multipletests(ps, method="holm")[1]):
        pair["holm_p"] = float(h)
    return {"seed": seed, "deep": "".join(map(str, deep)), "candidates": cands, "pairs": pairs}


SETS = [
    (1, 40, [("a", 0.9, False), ("b", 0.8, True), ("c", 0.6, False)]),
    (2, 200, [("gpt", 0.88, False), ("small", 0.86, True), ("tiny", 0.7, True), ("cot", 0.9, False)]),
    (3, 500, [("p1", 0.75, False), ("p2", 0.76, False), ("p3", 0.74, True), ("p4", 0.6, True), ("p5", 0.9, False)]),
    (4, 25, [("x", 0.99, False), ("y", 0.98, False)]),
]

print(json.dumps({
    "provenance": {
        "tool": "rank/testdata/reference.py with /usr/bin/python3 %s, scipy %s, statsmodels %s, numpy %s"
        % (sys.version.split()[0], scipy.__version__, statsmodels.__version__, np.__version__),
        "calls": "see the script's docstring",
    },
    "sets": [dataset(*s) for s in SETS],
}, indent=1))
