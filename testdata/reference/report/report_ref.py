#!/usr/bin/env python3
"""Reference values for the calibration report of
testdata/inspections/twelve.jsonl, computed independently of evalcal with
Debian's scipy, statsmodels and scikit-learn, to check the whole pipeline's
wiring (pairing, deep-minus-light direction, percentages, verdict order).

Run from the repository root with /usr/bin/python3; writes report_values.json.
"""
import json, os, sys
import numpy as np
import scipy, statsmodels, sklearn
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.inter_rater import cohens_kappa
from sklearn.metrics import brier_score_loss

src = "testdata/inspections/twelve.jsonl"
light, deep = {}, {}
for line in open(src):
    d = json.loads(line)
    (light if d["depth"] == "light" else deep)[d["run_id"]] = d
ids = sorted(light)
L = [light[i] for i in ids]
D = [deep[i] for i in ids]
n = len(ids)
order = {"fail": 0, "partial": 1, "pass": 2}
prov = {}
out = {"source": src, "n": n}

matches = sum(l["verdict"] == d["verdict"] for l, d in zip(L, D))
lo, hi = proportion_confint(matches, n, alpha=0.05, method="wilson")
out["agreement"] = {"matches": matches, "percent": 100 * matches / n, "wilson_lower": 100 * lo, "wilson_upper": 100 * hi}
prov["agreement"] = "statsmodels.stats.proportion.proportion_confint(matches, n, alpha=0.05, method='wilson'), x100"

# Per system: only systems with at least 10 paired runs are tested (the
# slices section's MinRuns); k counts them, and a smaller system is listed
# with its counts only (here every system has 3 runs: none is tested).
MIN_RUNS = 10
systems = sorted({l["system"] for l in L})
by = {s: [(l, d) for l, d in zip(L, D) if l["system"] == s] for s in systems}
k = max(1, sum(1 for s in systems if len(by[s]) >= MIN_RUNS))
out["agreement_by_system"] = []
for sysname in systems:
    pairs = by[sysname]
    m = sum(l["verdict"] == d["verdict"] for l, d in pairs)
    row = {"system": sysname, "matches": m, "n": len(pairs), "tested": len(pairs) >= MIN_RUNS}
    if row["tested"]:
        lo, hi = proportion_confint(m, len(pairs), alpha=0.05, method="wilson")
        slo, shi = proportion_confint(m, len(pairs), alpha=0.05 / k, method="wilson")
        row.update({"wilson_lower": 100 * lo, "wilson_upper": 100 * hi,
                    "simultaneous_lower": 100 * slo, "simultaneous_upper": 100 * shi})
    out["agreement_by_system"].append(row)
prov["agreement_by_system"] = "statsmodels proportion_confint(method='wilson') per system of at least 10 paired runs at alpha=0.05 and at alpha=0.05/k (k such systems: Bonferroni), x100; smaller systems: counts only"

for score in ("runtime_fidelity", "task_effectiveness"):
    x = np.array([l[score] for l in L], float)
    y = np.array([d[score] for d in D], float)
    r = stats.pearsonr(x, y)
    ci = r.confidence_interval(0.95)
    dlt = y - x
    m, sd = dlt.mean(), dlt.std(ddof=1)
    h = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)
    out[score] = {
        "pearson_r": r.statistic, "pearson_p": r.pvalue, "pearson_lower": ci.low, "pearson_upper": ci.high,
        "spearman_rho": stats.spearmanr(x, y).correlation,
        "mean_delta": m, "mean_delta_lower": m - h, "mean_delta_upper": m + h,
        "ba_bias": m, "ba_sd": sd, "ba_lower_loa": m - 1.96 * sd, "ba_upper_loa": m + 1.96 * sd,
    }
prov["scores"] = ("scipy.stats.pearsonr(light, deep) with .confidence_interval(0.95) (Fisher z); "
                  "scipy.stats.spearmanr; deltas deep - light: mean, scipy.stats.t.ppf(0.975, n-1) * sd / sqrt(n); "
                  "Bland-Altman limits mean +- 1.96 sd (ddof=1)")

table = np.zeros((3, 3))
for l, d in zip(L, D):
    table[order[l["verdict"]], order[d["verdict"]]] += 1
out["confusion"] = table.astype(int).tolist()
for name, wt in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
    res = cohens_kappa(table, wt=wt) if wt else cohens_kappa(table)
    out["kappa_" + name] = {"value": res.kappa, "se": res.std_kappa}
prov["kappa"] = "statsmodels.stats.inter_rater.cohens_kappa(table, wt=None|'linear'|'quadratic'): .kappa, .std_kappa; rows light, columns deep, order fail, partial, pass"

p = np.array([(l["runtime_fidelity"] + l["task_effectiveness"]) / 200 for l in L])
yv = np.array([1 if d["verdict"] == "pass" else 0 for d in D])
b = brier_score_loss(yv, p)
out["forecast"] = {"brier": b, "calibration": max(0.0, min(1.0, 1 - b / 0.25)) * 100, "base_rate": yv.mean()}
prov["forecast"] = "sklearn.metrics.brier_score_loss(deep pass, (light rf + light te)/200); calibration = clamp01(1 - brier/0.25) x 100"

out["provenance"] = {
    "tools": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
              "statsmodels": statsmodels.__version__, "scikit-learn": sklearn.__version__},
    "calls": prov,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_values.json"), "w") as f:
    json.dump(out, f, indent=2, sort_keys=True)
    f.write("\n")
