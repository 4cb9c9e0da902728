#!/usr/bin/python3
"""segment_ref.py writes runs.json, a fixture of runs with known answers,
and segment_values.json, the slice and comparison figures evalcal's
segment package must give on it, each with its provenance (tool, version,
exact call).

Run with Debian's python (python3-numpy, python3-scipy,
python3-statsmodels) from this directory:

    /usr/bin/python3 segment_ref.py

The fixture is drawn with a seeded numpy generator and planted so that the
answers are known: by system, deep passes alpha's runs most often (about
80%), beta's and gamma's less (about 55%); light is strict on alpha and
lenient on gamma, so light alone ranks gamma above alpha while deep ranks
alpha above gamma (an order light gets wrong). Deep inspected every run of
alpha and beta (classical rates) and about half of gamma's (PPI++). delta
has 6 paired runs: listed, not tested. By the metadata field `task`, a
fifth of the runs have no task (missing).

Everything below is written from the formulas (Wilson via statsmodels'
proportion_confint, kappa via statsmodels' cohens_kappa, McNemar via
scipy's binomtest, Wald differences via statsmodels'
test_proportions_2indep / confint_proportions_2indep where both rates are
classical, Holm via statsmodels' multipletests, PPI++ in numpy from
Angelopoulos, Duchi and Zrnic 2023 with lambda found by a numerical
minimiser), not from the Go code.
"""
import json
import math
import os

import numpy as np
import scipy
import scipy.optimize
import scipy.stats
import statsmodels
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (confint_proportions_2indep, proportion_confint,
                                          test_proportions_2indep)

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY = "numpy " + np.__version__
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__
Z = scipy.stats.norm.ppf(0.975)
MIN_RUNS = 10
ORDER = {"fail": 0, "partial": 1, "pass": 2}


def make_runs():
    rng = np.random.default_rng(20261202)
    plan = {  # system: (runs, deep pass prob, light leniency shift, share deep-inspected)
        "alpha": (60, 0.80, -0.25, 1.0),
        "beta": (60, 0.55, 0.0, 1.0),
        "gamma": (70, 0.55, 0.30, 0.5),
        "delta": (6, 0.5, 0.0, 1.0),
    }
    runs = []
    for system, (n, p, shift, share) in plan.items():
        for i in range(n):
            deep_pass = rng.random() < p
            deep = "pass" if deep_pass else ("partial" if rng.random() < 0.3 else "fail")
            # light's forecast: informative, shifted by the system's leniency
            f = float(np.clip((0.65 if deep_pass else 0.35) + shift * 0.5 + rng.normal(0, 0.18), 0, 1))
            f = round(f, 4)
            light = "pass" if f >= 0.55 else ("partial" if f >= 0.4 else "fail")
            rid = "%s-%03d" % (system, i)
            run = {"id": rid, "system": system, "light_verdict": light, "forecast": f,
                   "deep_verdict": deep if rng.random() < share else None}
            if rng.random() >= 0.2:
                run["metadata"] = {"task": "t%d" % rng.integers(1, 4), "tokens": int(rng.integers(100, 900))}
            runs.append(run)
    runs.sort(key=lambda r: r["id"])
    return runs


def val(value, tool, call):
    return {"value": None if value is None else float(value), "tool": tool, "call": call}


def wilson(k, n, alpha):
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    return [100 * lo, 100 * hi]


def ppi_lambda(y, fl, fu, n_total):
    nu = len(fu)
    crit = lambda lam: np.var(y - lam * fl, ddof=1) / n_total + lam ** 2 * np.var(fu, ddof=1) / nu
    res = scipy.optimize.minimize_scalar(crit, bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
    # the bounded search may stop a hair inside [0, 1]; the boundary wins ties
    best = min([0.0, 1.0, res.x], key=crit)
    return best


def ppi(y, fl, fu):
    """Cross-fitted PPI++ mean (folds: even and odd positions)."""
    y, fl, fu = np.asarray(y, float), np.asarray(fl, float), np.asarray(fu, float)
    n, nu = len(y), len(fu)
    folds = [np.arange(0, n, 2), np.arange(1, n, 2)]
    lam = [ppi_lambda(y[folds[1 - k]], fl[folds[1 - k]], fu, n) for k in (0, 1)]
    r = [y[folds[k]] - lam[k] * fl[folds[k]] for k in (0, 1)]
    nk = [len(folds[0]), len(folds[1])]
    lam_bar = (nk[0] * lam[0] + nk[1] * lam[1]) / n
    theta = (nk[0] * r[0].mean() + nk[1] * r[1].mean()) / n + lam_bar * fu.mean()
    var = (nk[0] * np.var(r[0], ddof=1) + nk[1] * np.var(r[1], ddof=1)) / n ** 2 + lam_bar ** 2 * np.var(fu, ddof=1) / nu
    se = math.sqrt(var)
    lo, hi = theta - Z * se, theta + Z * se
    c = lambda x: min(1.0, max(0.0, x))
    return c(theta), se, c(lo), c(hi), lam_bar


def slice_ref(value, rs, k):
    paired = [r for r in rs if r["deep_verdict"] is not None]
    n = len(paired)
    matches = sum(r["light_verdict"] == r["deep_verdict"] for r in paired)
    out = {"value": value, "n": n, "n_light": len(rs), "matches": int(matches), "tested": bool(n >= MIN_RUNS)}
    if n < MIN_RUNS:
        return out
    out["wilson95"] = val(None, STATSMODELS, "proportion_confint(%d, %d, alpha=0.05, method='wilson')" % (matches, n))
    out["wilson95"]["value"] = wilson(matches, n, 0.05)
    out["simultaneous95"] = {"value": wilson(matches, n, 0.05 / k), "tool": STATSMODELS,
                             "call": "proportion_confint(%d, %d, alpha=0.05/%d, method='wilson')" % (matches, n, k)}
    table = np.zeros((3, 3))
    for r in paired:
        table[ORDER[r["light_verdict"]], ORDER[r["deep_verdict"]]] += 1
    kres = cohens_kappa(table, wt="linear")
    call = "cohens_kappa(%s, wt='linear')" % table.astype(int).tolist()
    out["kappa_linear"] = {"value": val(kres.kappa, STATSMODELS, call + ".kappa"), "se": val(kres.std_kappa, STATSMODELS, call + ".std_kappa")}
    b = sum(r["light_verdict"] == "pass" and r["deep_verdict"] != "pass" for r in paired)
    c = sum(r["deep_verdict"] == "pass" and r["light_verdict"] != "pass" for r in paired)
    out["leniency"] = {"b": int(b), "c": int(c),
                       "p": val(scipy.stats.binomtest(b, b + c, 0.5).pvalue if b + c else None, SCIPY, "binomtest(%d, %d, 0.5).pvalue" % (b, b + c))}
    lp = sum(r["light_verdict"] == "pass" for r in rs)
    nl = len(rs)
    p = lp / nl
    out["light_rate"] = {"percent": 100 * p, "se": 100 * math.sqrt(p * (1 - p) / nl), "ci95": wilson(lp, nl, 0.05),
                         "count": lp, "n": nl, "tool": STATSMODELS, "call": "proportion_confint(%d, %d, alpha=0.05, method='wilson')" % (lp, nl)}
    y = [1.0 if r["deep_verdict"] == "pass" else 0.0 for r in paired]
    fl = [r["forecast"] for r in paired]
    fu = [r["forecast"] for r in rs if r["deep_verdict"] is None]
    if not fu:
        dp = int(sum(y))
        q = dp / n
        out["deep_rate"] = {"method": "classical", "percent": 100 * q, "se": 100 * math.sqrt(q * (1 - q) / n),
                            "ci95": wilson(dp, n, 0.05), "count": dp, "n": n, "tool": STATSMODELS,
                            "call": "proportion_confint(%d, %d, alpha=0.05, method='wilson')" % (dp, n)}
    else:
        theta, se, lo, hi, lam = ppi(y, fl, fu)
        out["deep_rate"] = {"method": "ppi++", "percent": 100 * theta, "se": 100 * se, "ci95": [100 * lo, 100 * hi],
                            "lambda": lam, "tool": NUMPY + ", " + SCIPY,
                            "call": "cross-fitted PPI++ (numpy; lambda by minimize_scalar bounded on [0, 1])"}
    return out


def diff(a, b, side):
    ra, rb = a[side], b[side]
    d = ra["percent"] - rb["percent"]
    se = math.hypot(ra["se"], rb["se"])
    p = 2 * scipy.stats.norm.sf(abs(d / se))
    out = {"points": d, "se": se, "ci95": [d - Z * se, d + Z * se], "p": p, "tool": SCIPY,
           "call": "2 * norm.sf(|d| / hypot(se_a, se_b))"}
    if "count" in ra and "count" in rb:
        # classical on both sides: statsmodels' Wald test of two proportions
        t = test_proportions_2indep(ra["count"], ra["n"], rb["count"], rb["n"], method="wald", compare="diff")
        lo, hi = confint_proportions_2indep(ra["count"], ra["n"], rb["count"], rb["n"], method="wald", compare="diff")
        assert abs(t.pvalue - p) < 1e-12, (t.pvalue, p)
        assert abs(100 * lo - (d - Z * se)) < 1e-9 and abs(100 * hi - (d + Z * se)) < 1e-9
        out["tool"] = STATSMODELS
        out["call"] = "test_proportions_2indep(%d, %d, %d, %d, method='wald', compare='diff').pvalue" % (
            ra["count"], ra["n"], rb["count"], rb["n"])
    return out


def field_ref(runs, field):
    groups = {}
    missing = 0
    for r in runs:
        v = r["system"] if field == "system" else r.get("metadata", {}).get(field)
        if v is None:
            missing += 1
            continue
        groups.setdefault(str(v), []).append(r)
    values = sorted(groups)
    k = sum(1 for v in values if sum(r["deep_verdict"] is not None for r in groups[v]) >= MIN_RUNS)
    slices = [slice_ref(v, sorted(groups[v], key=lambda r: r["id"]), max(k, 1)) for v in values]
    tested = [s for s in slices if s["tested"]]
    comps = []
    for i in range(len(tested)):
        for j in range(i + 1, len(tested)):
            comps.append({"a": tested[i]["value"], "b": tested[j]["value"],
                          "deep": diff(tested[i], tested[j], "deep_rate"), "light": diff(tested[i], tested[j], "light_rate")})
    for side in ("deep", "light"):
        if comps:
            rej, q, _, _ = multipletests([c[side]["p"] for c in comps], alpha=0.05, method="holm")
            for c, qq in zip(comps, q):
                c[side]["p_holm"] = float(qq)
                c[side]["holm_call"] = STATSMODELS + ": multipletests(p, alpha=0.05, method='holm')[1]"
    for c in comps:
        c["order_wrong"] = bool(c["deep"]["points"] * c["light"]["points"] < 0 and c["deep"]["p_holm"] < 0.05)
        c["significance_wrong"] = bool((c["deep"]["p_holm"] < 0.05) != (c["light"]["p_holm"] < 0.05))
    return {"field": field, "runs": len(runs) - missing, "missing": missing, "tested": k, "slices": slices, "comparisons": comps}


def main():
    runs = make_runs()
    with open(os.path.join(HERE, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1, sort_keys=True)
        f.write("\n")
    out = {"generated_by": "segment_ref.py", "min_runs": MIN_RUNS,
           "fields": [field_ref(runs, "system"), field_ref(runs, "task")]}
    with open(os.path.join(HERE, "segment_values.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
