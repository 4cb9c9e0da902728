#!/usr/bin/python3
"""reliability_ref.py writes reliability_values.json: reference values for
Krippendorff's alpha (statistician/krippendorff.go), Gwet's AC1
(gwet.go) and the class-wise agreement (classwise.go), each with its
provenance (tool, version, exact call).

Run with Debian's python (python3-numpy, python3-scipy,
python3-statsmodels, python3-sklearn) from this directory:

    /usr/bin/python3 reliability_ref.py

Krippendorff's alpha is written here from Krippendorff (2011),
"Computing Krippendorff's Alpha-Reliability", by the paper's own route:
the coincidence matrix from all pairs of values within a unit and the
metric's difference matrix, summed over all pairs of values (the Go code
uses no matrix and sums over values). The script stops unless it
reproduces the paper's worked example (section C: nominal 0.743,
ordinal 0.815, interval 0.849). When R's irr package is installed
(it is not packaged in Debian 12; values were written without it),
irr::kripp.alpha is run on every data set through
kripp_irr.R and its value is stored too: irr divides by m_u - 1 only
when some value is missing, so on complete data with more than two
raters it differs from the paper (the tests compare irr only where it
applies the paper's formula).

Gwet's AC1 and its variance are written from Gwet (2008), "Computing
inter-rater reliability and its variance in the presence of high
agreement", Br. J. Math. Stat. Psychol. 61, 29-48, and Gwet's Handbook
of Inter-Rater Reliability (4th ed., 2014, ch. 5), the formulas irrCAC's
gwet.ac1.raw implements (irrCAC is not in Debian). A second route checks
AC1 inside the script: with two raters and no missing value it equals
Gwet's (2008) two-rater formula from the 2 x 2 (q x q) table.
"""
import json
import math
import os
import shutil
import subprocess
import tempfile

import numpy as np
import scipy
import scipy.stats
import sklearn
import statsmodels
from sklearn.metrics import balanced_accuracy_score, recall_score
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY = "numpy " + np.__version__
SCIPY = "scipy " + scipy.__version__


def t_ppf(p, df):
    """Student's t quantile. scipy 1.10's t.ppf is accurate to about 1e-8
    only (qt(0.975, 39) in R is 2.0226909200367604, t.ppf gives
    2.022690911734728); three Newton steps on scipy.stats.t.cdf bring it
    to R's value within 1e-14."""
    x = scipy.stats.t.ppf(p, df)
    for _ in range(3):
        x -= (scipy.stats.t.cdf(x, df) - p) / scipy.stats.t.pdf(x, df)
    return x


def val(value, tool, call):
    return {"value": float(value), "tool": tool, "call": call}


# ------------------------------------------------------ Krippendorff
KRIPP_CALL = ("numpy, Krippendorff (2011) section B: o_ck = sum_u sum_{i != j in u} [v_i = c][v_j = k]/(m_u - 1) "
              "over units with m_u >= 2 values; n_c = sum_k o_ck; alpha = 1 - (n-1) sum o_ck d_ck / sum n_c n_k d_ck "
              "with d_ck = [c != k] (nominal), (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 (ordinal), (c - k)^2 (interval)")


def kripp_alpha(data, metric):
    """data: units x raters list with None for missing."""
    units = [[v for v in row if v is not None] for row in data]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    idx = {v: i for i, v in enumerate(values)}
    V = len(values)
    o = np.zeros((V, V))
    for u in units:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[idx[u[i]], idx[u[j]]] += 1.0 / (m - 1)
    nc = o.sum(axis=1)
    n = nc.sum()
    d = np.zeros((V, V))
    for c in range(V):
        for k in range(V):
            if metric == "nominal":
                d[c, k] = float(c != k)
            elif metric == "ordinal":
                lo, hi = min(c, k), max(c, k)
                d[c, k] = (nc[lo:hi + 1].sum() - (nc[c] + nc[k]) / 2) ** 2
            else:
                d[c, k] = (values[c] - values[k]) ** 2
    do = (o * d).sum() / n
    de = (np.outer(nc, nc) * d).sum() / (n * (n - 1))
    return 1 - do / de, do, de, len(units), int(round(n))


# Krippendorff (2011), section C: 4 observers x 12 units, "." missing.
PAPER = [
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, 3, None, None],
]
for metric, published in (("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)):
    a = kripp_alpha(PAPER, metric)[0]
    assert round(a, 3) == published, (metric, a, published)


def rating_sets():
    rng = np.random.RandomState(20261202)
    out = [("krippendorff_2011_example", PAPER, [1, 2, 3, 4, 5])]

    def draw(name, units, raters, cats, agree, missing, scale=None):
        truth = rng.randint(0, len(cats), size=units)
        rows = []
        for u in range(units):
            row = []
            for _ in range(raters):
                if rng.uniform() < missing:
                    row.append(None)
                    continue
                k = truth[u] if rng.uniform() < agree else rng.randint(0, len(cats))
                if scale == "near" and rng.uniform() < 0.5:  # ordinal noise: one step off
                    k = int(np.clip(truth[u] + rng.choice([-1, 1]), 0, len(cats) - 1))
                row.append(cats[k])
            rows.append(row)
        out.append((name, rows, cats))

    draw("pass_fail_2raters_complete", 40, 2, [0, 1], 0.8, 0.0)
    draw("pass_fail_2raters_missing", 50, 2, [0, 1], 0.8, 0.15)
    draw("pass_fail_3raters_missing", 60, 3, [0, 1], 0.85, 0.2)
    draw("pass_fail_5raters_missing", 30, 5, [0, 1], 0.7, 0.3)
    draw("verdict3_3raters_missing", 45, 3, [0, 1, 2], 0.75, 0.1)
    draw("verdict3_4raters_missing_near", 35, 4, [0, 1, 2], 0.6, 0.25, "near")
    draw("likert5_2raters_complete", 30, 2, [1, 2, 3, 4, 5], 0.5, 0.0, "near")
    draw("likert5_3raters_missing_near", 40, 3, [1, 2, 3, 4, 5], 0.5, 0.2, "near")
    draw("likert5_6raters_missing", 25, 6, [1, 2, 3, 4, 5], 0.4, 0.4, "near")
    draw("likert7_4raters_missing", 50, 4, [1, 2, 3, 4, 5, 6, 7], 0.55, 0.15, "near")
    draw("scores_quarter_3raters_missing", 40, 3, [0.0, 0.25, 0.5, 0.75, 1.0], 0.6, 0.2, "near")
    draw("scores_uneven_3raters_missing", 30, 3, [0.0, 0.1, 0.5, 0.9, 1.0], 0.5, 0.2)
    draw("low_agreement_4raters_missing", 40, 4, [0, 1, 2, 3], 0.1, 0.2)
    draw("high_agreement_imbalanced_2raters_missing", 80, 2, [0, 1], 0.97, 0.1)
    draw("few_units_3raters_missing", 6, 3, [0, 1, 2], 0.7, 0.2)
    draw("many_units_2raters_missing", 300, 2, [0, 1, 2, 3], 0.7, 0.1)
    draw("heavy_missing_6raters", 30, 6, [0, 1, 2], 0.8, 0.6)
    draw("negative_scale_3raters_missing", 30, 3, [-2, -1, 0, 1, 2], 0.6, 0.2, "near")
    # Imbalanced pass/fail: one category dominates (the AC1 motivation).
    rows = [[1, 1, 1] if u % 10 else [1, 0, None] for u in range(40)]
    rows[3][1] = 0
    out.append(("dominant_pass_3raters_missing", rows, [0, 1]))
    # Systematic disagreement: alpha below 0.
    out.append(("systematic_disagreement", [[0, 1], [1, 0], [0, 1], [1, 0], [0, 0], [1, None]], [0, 1]))
    # Units with one or no rating are left out of alpha, kept by AC1.
    out.append(("lonely_units", [[1, 2, 2], [None, 3, None], [None, None, None], [3, 3, 2], [1, 1, None], [2, None, None]],
                [1, 2, 3]))
    # Two raters, a category never used on the scale (q = 3 given).
    out.append(("unused_category_q3", [[0, 0], [1, 1], [0, 1], [1, 1], [0, 0], [1, 1], [1, 0], [1, 1]], [0, 1, 2]))
    return out


def run_irr(sets):
    """irr::kripp.alpha on every data set and metric, or {} without irr."""
    if not shutil.which("Rscript"):
        return {}, None
    probe = subprocess.run(["Rscript", "-e", "suppressPackageStartupMessages(library(irr)); cat(as.character(packageVersion('irr')))"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return {}, None
    version = "R irr " + probe.stdout.strip()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for name, rows, _ in sets:
            flat = ";".join(",".join("NA" if v is None else repr(float(v)) for v in row) for row in rows)
            f.write(f"{name}|{flat}\n")
        path = f.name
    res = subprocess.run(["Rscript", os.path.join(HERE, "kripp_irr.R"), path], capture_output=True, text=True, check=True)
    os.unlink(path)
    out = {}
    for line in res.stdout.splitlines():
        name, metric, value = line.split("|")
        out[(name, metric)] = float(value)
    return out, version


def gwet_ac1(rows, q, level):
    """Gwet (2008) / Handbook ch. 5 AC1, variance with N = Inf."""
    rows = [[v for v in row if v is not None] for row in rows]
    rows = [r for r in rows if r]  # units with no rating are excluded
    cats = sorted({v for r in rows for v in r})
    n = len(rows)
    counts = np.array([[sum(1 for v in r if v == c) for c in cats] for r in rows], float)
    ri = counts.sum(axis=1)
    two = ri >= 2
    n2 = two.sum()
    pa_i = np.zeros(n)
    pa_i[two] = (counts[two] * (counts[two] - 1)).sum(axis=1) / (ri[two] * (ri[two] - 1))
    pa = pa_i[two].sum() / n2
    pi = (counts / ri[:, None]).sum(axis=0) / n
    pe = (pi * (1 - pi)).sum() / (q - 1)
    ac1 = (pa - pe) / (1 - pe)
    ac1_i = np.where(two, (n / n2) * (pa_i - pe) / (1 - pe), 0.0)
    pe_i = (counts * (1 - pi)).sum(axis=1) / (ri * (q - 1))
    ac1_x = ac1_i - 2 * (1 - ac1) * (pe_i - pe) / (1 - pe)
    se = math.sqrt(((ac1_x - ac1) ** 2).sum() / (n * (n - 1)))
    t = t_ppf(1 - (1 - level) / 2, n - 1)
    return ac1, se, ac1 - t * se, ac1 + t * se, pa, pe, n, int(n2)


def gwet_two_raters(rows, q):
    """Second route, complete data, two raters: Gwet (2008) eq. for 2 raters
    from the q x q table: pa = sum_k p_kk, pi_k = (p_k+ + p_+k)/2,
    pe = sum pi_k (1 - pi_k)/(q - 1)."""
    cats = sorted({v for r in rows for v in r})
    table = np.zeros((len(cats), len(cats)))
    for a, b in rows:
        table[cats.index(a), cats.index(b)] += 1
    table /= table.sum()
    pa = np.trace(table)
    pi = (table.sum(axis=1) + table.sum(axis=0)) / 2
    pe = (pi * (1 - pi)).sum() / (q - 1)
    return (pa - pe) / (1 - pe)


GWET_CALL = ("numpy, Gwet (2008) / Handbook 4th ed. ch. 5 (the formulas of irrCAC gwet.ac1.raw with N = Inf): "
             "pa = mean over units with r_i >= 2 of sum_k r_ik(r_ik - 1)/(r_i(r_i - 1)); pi_k = mean_i r_ik/r_i; "
             "pe = sum pi_k(1 - pi_k)/(q - 1); AC1 = (pa - pe)/(1 - pe); ac1*_i = (n/n')(pa_i - pe[r_i>=2])/(1 - pe) "
             "- 2(1 - AC1)(pe_i - pe)/(1 - pe), pe_i = sum_k r_ik(1 - pi_k)/(r_i(q - 1)); "
             "se = sqrt(sum (ac1*_i - AC1)^2/(n(n-1))); CI = AC1 -/+ t_ppf(1 - (1-level)/2, n - 1) se (unclamped; t_ppf = scipy.stats.t.ppf polished by Newton steps on t.cdf)")


def reliability_cases():
    sets = rating_sets()
    irr, irr_version = run_irr(sets)
    out = []
    for name, rows, cats in sets:
        raters = max(len(r) for r in rows)
        complete = all(len(r) == raters and None not in r for r in rows)
        case = {"name": name, "ratings": [[None if v is None else float(v) for v in r] for r in rows],
                "categories": len(cats), "level": 0.95}
        for metric in ("nominal", "ordinal", "interval"):
            a, do, de, units, n = kripp_alpha(rows, metric)
            call = "krippendorff: " + metric
            case[metric] = {"alpha": val(a, NUMPY, call), "observed": val(do, NUMPY, call),
                            "expected": val(de, NUMPY, call), "units": units, "values": n}
            if (name, metric) in irr:
                case[metric]["irr"] = val(irr[(name, metric)], irr_version,
                                          f"kripp.alpha(t(ratings), method = '{metric}')")
                # irr follows the paper unless the data are complete with > 2 raters.
                case[metric]["irr_applies"] = not complete or raters == 2
                if case[metric]["irr_applies"]:
                    assert abs(irr[(name, metric)] - a) < 1e-9, (name, metric, irr[(name, metric)], a)
        ac1, se, lo, hi, pa, pe, n, n2 = gwet_ac1(rows, len(cats), 0.95)
        if complete and raters == 2:
            assert abs(gwet_two_raters(rows, len(cats)) - ac1) < 1e-12, name
        tool = NUMPY + ", " + SCIPY
        call = "gwet_ac1 (level 0.95, q = categories)"
        case["ac1"] = {"value": val(ac1, tool, call), "se": val(se, tool, call),
                       "lower": val(lo, tool, call), "upper": val(hi, tool, call),
                       "pa": val(pa, tool, call), "pe": val(pe, tool, call), "units": n, "paired_units": n2}
        out.append(case)
    return out, irr_version


# ------------------------------------------------------ class-wise
def classwise_cases():
    out = []
    tool = "statsmodels " + statsmodels.__version__ + ", sklearn " + sklearn.__version__
    for counts in ([40, 5, 8, 47], [90, 6, 1, 3], [12, 0, 0, 9], [30, 10, 0, 0], [0, 3, 4, 50], [7, 2, 3, 1],
                   [180, 12, 25, 33], [1, 0, 0, 1]):
        both, light_only, deep_only, neither = counts
        y_true = [1] * both + [0] * light_only + [1] * deep_only + [0] * neither
        y_pred = [1] * both + [1] * light_only + [0] * deep_only + [0] * neither
        case = {"counts": counts, "level": 0.95}

        def rate(x, n, what):
            if n == 0:
                return None
            lo, hi = proportion_confint(x, n, alpha=0.05, method="wilson")
            call = f"proportion_confint({x}, {n}, alpha=0.05, method='wilson') ({what})"
            return {"lower": val(lo, tool, call), "upper": val(hi, tool, call)}

        case["sensitivity"] = rate(both, both + deep_only, "sensitivity")
        case["specificity"] = rate(neither, neither + light_only, "specificity")
        case["base_rate"] = rate(both + deep_only, sum(counts), "base rate")
        if case["sensitivity"]:
            case["sensitivity"]["value"] = val(recall_score(y_true, y_pred, pos_label=1), tool, "recall_score(y_true, y_pred, pos_label=1)")
        if case["specificity"]:
            case["specificity"]["value"] = val(recall_score(y_true, y_pred, pos_label=0), tool, "recall_score(y_true, y_pred, pos_label=0)")
        if case["sensitivity"] and case["specificity"]:
            ba = balanced_accuracy_score(y_true, y_pred)
            se, sp = case["sensitivity"], case["specificity"]
            s, p = se["value"]["value"], sp["value"]["value"]
            lo = ba - math.hypot(s - se["lower"]["value"], p - sp["lower"]["value"]) / 2
            hi = ba + math.hypot(se["upper"]["value"] - s, sp["upper"]["value"] - p) / 2
            mover = ("MOVER (Zou and Donner 2008) on the Wilson intervals above: ba -/+ "
                     "hypot(se - l1, sp - l2)/2, hypot(u1 - se, u2 - sp)/2")
            case["balanced"] = {"value": val(ba, tool, "balanced_accuracy_score(y_true, y_pred)"),
                                "lower": val(max(0, lo), "python", mover), "upper": val(min(1, hi), "python", mover)}
        out.append(case)
    return out


def main():
    reliability, irr_version = reliability_cases()
    doc = {
        "provenance": {
            "script": "reliability_ref.py",
            "calls": {"krippendorff": KRIPP_CALL, "gwet_ac1": GWET_CALL},
            "tools": [NUMPY, SCIPY, "statsmodels " + statsmodels.__version__, "sklearn " + sklearn.__version__,
                      irr_version or "R irr not installed: no irr values"],
        },
        "reliability": reliability,
        "classwise": classwise_cases(),
    }
    with open(os.path.join(HERE, "reliability_values.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
