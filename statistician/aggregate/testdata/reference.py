#!/usr/bin/python3
"""Reference figures for reference_test.go, computed from runs.json with Debian's
scipy and statsmodels python3-scipy and python3-statsmodels (never with evalcal):
/usr/bin/python3 reference.py > reference.json

Each figure names the exact call that produced it. Run it again when
runs.json changes and commit both files."""
import json
import math
import platform
import sys

import numpy as np
import scipy
import scipy.stats as st
import statsmodels
import statsmodels.api as sm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

ORDER = ["fail", "partial", "pass"]
Z95 = st.norm.ppf(0.975)

runs = json.load(open("runs.json"))["runs"]
n = len(runs)
lv = [r["light"][0] for r in runs]
dv = [r["deep"][0] for r in runs]
match = np.array([a == b for a, b in zip(lv, dv)], dtype=float)
systems = [r["system"] for r in runs]
out = {"provenance": {
    "script": "statistician/aggregate/testdata/reference.py",
    "python": platform.python_version(), "numpy": np.__version__,
    "scipy": scipy.__version__, "statsmodels": statsmodels.__version__,
}}

# Agreement: statsmodels proportion_confint(count, nobs, alpha=0.05, method="wilson").
lo, hi = proportion_confint(int(match.sum()), n, alpha=0.05, method="wilson")
out["agreement"] = {"matches": int(match.sum()), "n": n, "percent": 100 * match.mean(),
                    "wilson95": [100 * lo, 100 * hi]}

# Per system: Wilson at 95%, and at the Bonferroni z for the k tested
# systems (those with at least 10 runs, segment.MinRuns; a smaller one is
# listed with its counts, no interval) with alpha = 1 - Phi(Z95) treated
# one-sided: z' = norm.ppf(1 - alpha/k) (statistician.BonferroniZ's
# definition), i.e. proportion_confint at alpha = 2 (1 - Phi(z')).
MIN_RUNS = 10
names = sorted(set(systems))
counts = {s: [match[i] for i in range(n) if systems[i] == s] for s in names}
k = max(1, sum(1 for s in names if len(counts[s]) >= MIN_RUNS))
zk = st.norm.ppf(1 - (1 - st.norm.cdf(Z95)) / k)
out["by_system"] = []
for s in names:
    m = counts[s]
    c, t = int(sum(m)), len(m)
    row = {"system": s, "matches": c, "n": t, "tested": t >= MIN_RUNS}
    if t >= MIN_RUNS:
        w = proportion_confint(c, t, alpha=0.05, method="wilson")
        ws = proportion_confint(c, t, alpha=2 * (1 - st.norm.cdf(zk)), method="wilson")
        row["wilson95"] = [100 * w[0], 100 * w[1]]
        row["simultaneous"] = [100 * ws[0], 100 * ws[1]]
    out["by_system"].append(row)

# Kappa: statsmodels cohens_kappa(table, wt=None|"linear"|"quadratic"):
# kappa and std_kappa; interval kappa +- Z95 std_kappa.
table = np.zeros((3, 3))
for a, b in zip(lv, dv):
    table[ORDER.index(a), ORDER.index(b)] += 1
out["confusion"] = table.astype(int).tolist()
out["kappa"] = {}
for name, wt in [("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")]:
    res = cohens_kappa(table, wt=wt, return_results=True)
    out["kappa"][name] = {"value": res.kappa, "se": res.std_kappa,
                          "ci95": [max(-1, res.kappa - Z95 * res.std_kappa), min(1, res.kappa + Z95 * res.std_kappa)]}
po = np.trace(table) / n
out["kappa"]["raw_agreement"] = po
out["kappa"]["pabak"] = (3 * po - 1) / 2  # Byrt, Bishop and Carlin (1993), k = 3

# Leniency at the pass line: statsmodels mcnemar([[a, b], [c, d]], exact=True).
lp = np.array([v == "pass" for v in lv])
dp = np.array([v == "pass" for v in dv])
b = int(np.sum(lp & ~dp))
c = int(np.sum(dp & ~lp))
t2 = [[int(np.sum(lp & dp)), b], [c, int(np.sum(~lp & ~dp))]]
out["leniency"] = {"light_pass_deep_not": b, "deep_pass_light_not": c, "mcnemar_p": mcnemar(t2, exact=True).pvalue,
                   "light_pass_rate": 100 * lp.mean(), "deep_pass_rate": 100 * dp.mean()}

# Clustered agreement by system: 3 systems, fewer than the 5 clusters a
# clustered interval needs (with 3 the cluster-robust variance has 2
# degrees of freedom; statsmodels' CR1 interval on them came out narrower
# than Wilson's, design effect 0.116): only the percent, no interval.
out["clustered"] = {"percent": 100 * match.mean(), "ci95": None, "clusters": len(names)}


def ccc(a, b):
    # Lin (1989): rho_c = 2 s_ab / (s_a^2 + s_b^2 + (m_a - m_b)^2), with
    # n-denominator moments; SE and z-transform interval as epiR::epi.ccc.
    a, b = np.asarray(a, float), np.asarray(b, float)
    sa2, sb2 = a.var(), b.var()
    sab = np.mean((a - a.mean()) * (b - b.mean()))
    rc = 2 * sab / (sa2 + sb2 + (a.mean() - b.mean()) ** 2)
    r = st.pearsonr(a, b)[0]
    u = (b.mean() - a.mean()) / (sa2 * sb2) ** 0.25
    se2 = ((1 - r ** 2) * rc ** 2 * (1 - rc ** 2) / r ** 2 + 2 * rc ** 3 * (1 - rc) * u ** 2 / r
           - rc ** 4 * u ** 4 / (2 * r ** 2)) / (len(a) - 2)
    se = math.sqrt(se2)
    z = math.atanh(rc)
    half = Z95 * se / (1 - rc ** 2)
    return {"value": rc, "se": se, "ci95": [math.tanh(z - half), math.tanh(z + half)]}


out["scores"] = {}
for idx, name in [(1, "runtime_fidelity"), (2, "task_effectiveness")]:
    light = np.array([r["light"][idx] for r in runs], float)
    deep = np.array([r["deep"][idx] for r in runs], float)
    d = deep - light
    # Pearson: scipy.stats.pearsonr(light, deep): r, p, and its
    # confidence_interval(0.95) (Fisher z).
    pr = st.pearsonr(light, deep)
    pci = pr.confidence_interval(0.95)
    sp = st.spearmanr(light, deep)
    # Mean delta: mean, SD (ddof=1) and scipy.stats.t.interval(0.95, n-1,
    # mean, sem) (R's t.test).
    m, sd = d.mean(), d.std(ddof=1)
    tci = st.t.interval(0.95, n - 1, loc=m, scale=sd / math.sqrt(n))
    # Bland-Altman (1999, section 3): limits bias +- 1.96 s; bias CI
    # bias +- t s/sqrt(n); limit CI limit +- t sqrt(3 s^2/n).
    tq = st.t.ppf(0.975, n - 1)
    lower, upper = m - 1.96 * sd, m + 1.96 * sd
    hl = tq * math.sqrt(3 * sd ** 2 / n)
    out["scores"][name] = {
        "pearson": {"r": pr.statistic, "p": pr.pvalue, "ci95": [pci.low, pci.high]},
        "spearman": sp.correlation,
        "delta": {"mean": m, "sd": sd, "ci95": list(tci)},
        "bland_altman": {"bias": m, "sd": sd, "lower": lower, "upper": upper,
                         "bias_ci": [m - tq * sd / math.sqrt(n), m + tq * sd / math.sqrt(n)],
                         "lower_ci": [lower - hl, lower + hl], "upper_ci": [upper - hl, upper + hl]},
        "ccc": ccc(light, deep),
    }

json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
