#!/usr/bin/python3
"""Reference figures for clusterbias_ref_test.go, computed from runs.jsonl
without evalcal: Debian's python3-statsmodels and scipy, and R's
clubSandwich through Rscript. /usr/bin/python3 reference.py > reference.json

Three runs of the pipeline are checked (calibrate.Run on runs.jsonl as saved
inspections on both sides, every run sampled):
  all:      deep on every run, --cluster task, --judge-family openai;
  slices:   deep on every run, no judge family;
  by_task:  deep on every run, --judge-family openai, --by task (the slice indicators are tasks);
  cluster:  --deep-policy cluster --deep-fraction 0.5 --seed 1, --cluster task.
A run's length is its metadata.output_length (every run has one); its
family is metadata.model_family, else the one its system's name gives."""
import hashlib
import json
import math
import platform
import subprocess
import sys
import tempfile

import numpy as np
import scipy
import scipy.stats as st
import statsmodels
import statsmodels.api as sm

runs = {}
for raw in open("runs.jsonl", "rb"):
    line = raw.strip()
    if not line:
        continue
    v = json.loads(line)
    r = runs.setdefault(v["run_id"], {"id": v["run_id"], "system": v["system"], "md": v["metadata"]})
    r[v["depth"]] = v
ids = sorted(runs)
R = [runs[i] for i in ids]
N = len(R)


def mean_score(x):
    return (x["runtime_fidelity"] + x["task_effectiveness"]) / 2


out = {"provenance": {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                      "statsmodels": statsmodels.__version__}}


def clubsandwich(y, g):
    """CR2 SE and Bell-McCaffrey df of the mean of y clustered by g:
    clubSandwich::coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("y,g\n")
        for a, b in zip(y, g):
            f.write(f"{a!r},{b}\n")
        path = f.name
    code = (f'suppressMessages(library(clubSandwich)); d <- read.csv("{path}"); '
            'ct <- coef_test(lm(y ~ 1, data = d), vcov = "CR2", cluster = d$g, test = "Satterthwaite"); '
            'cat(sprintf("%.17g %.17g %s", ct$SE, ct$df_Satt, packageVersion("clubSandwich")))')
    se, df, version = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True).stdout.split()
    out["provenance"]["clubSandwich"] = version
    return float(se), float(df)


def clustered_agreement(rs):
    y = np.array([float(r["light"]["verdict"] == r["deep"]["verdict"]) for r in rs])
    g = [r["md"]["task"] for r in rs]
    se, df = clubsandwich(y, g)
    p, n = y.mean(), len(y)
    # Korn-Graubard effective size in a Wilson interval on t(df).
    neff = min(n, p * (1 - p) / se ** 2)
    t = st.t.ppf(0.975, df)
    centre = (p + t * t / (2 * neff)) / (1 + t * t / neff)
    half = t / (1 + t * t / neff) * math.sqrt(p * (1 - p) / neff + t * t / (4 * neff * neff))
    return {"percent": 100 * p, "clusters": len(set(g)), "df": df, "effective_n": neff,
            "ci95": [100 * (centre - half), 100 * (centre + half)], "design_effect": se ** 2 / (p * (1 - p) / n)}


def family(r):
    if "model_family" in r["md"]:
        return r["md"]["model_family"]
    s = r["system"].lower()
    if s.startswith("gpt") or (s[0] == "o" and s[1].isdigit()):
        return "openai"
    return None


def hc3(y, cols, names):
    """statsmodels OLS(y, X).fit(cov_type='HC3', use_t=True)."""
    X = np.column_stack(cols)
    fit = sm.OLS(np.asarray(y, float), X).fit(cov_type="HC3", use_t=True)
    ci = fit.conf_int(alpha=0.05)
    return {"df": int(fit.df_resid), "coefficients": [
        {"name": n, "estimate": fit.params[j], "se": fit.bse[j], "t": fit.tvalues[j], "p": fit.pvalues[j],
         "ci": [ci[j][0], ci[j][1]]} for j, n in enumerate(names)]}


def bias(rs, judge, slice_of=lambda r: r["system"]):
    gap = [mean_score(r["light"]) - mean_score(r["deep"]) for r in rs]
    lenient = [float(r["light"]["verdict"] == "pass" and r["deep"]["verdict"] != "pass") for r in rs]
    cols, names = [np.ones(len(rs)), np.log([r["md"]["output_length"] for r in rs])], ["intercept", "log_length"]
    same = np.array([float(judge is not None and family(r) == judge) for r in rs])
    if 0 < same.sum() < len(rs):
        cols.append(same)
        names.append("same_family")
    # Same-family varies within four systems, so the system indicators
    # are identified beside it (reference: the first system in sorted order).
    systems = sorted({slice_of(r) for r in rs})
    for s in systems[1:]:
        cols.append(np.array([float(slice_of(r) == s) for r in rs]))
        names.append("slice:" + s)
    return {"score_gap": hc3(gap, cols, names), "leniency": hc3(lenient, cols, names)}


out["all"] = {"agreement_clustered": clustered_agreement(R), "bias": bias(R, "openai")}
out["slices"] = {"bias": bias(R, None)}
out["by_task"] = {"bias": bias(R, "openai", slice_of=lambda r: r["md"]["task"])}


def draw(seed, key):
    """The first 8 bytes of SHA-256(seed as 8 big-endian bytes + key) >> 11, over 2^53."""
    h = hashlib.sha256(seed.to_bytes(8, "big") + key.encode()).digest()
    return (int.from_bytes(h[:8], "big") >> 11) / 2 ** 53


tasks = sorted({r["md"]["task"] for r in R})
G = len(tasks)
k = max(1, min(G, int(math.floor(G * 0.5 + 0.5))))
order = sorted(tasks, key=lambda s: (draw(1, "cluster\x00" + s), s))
chosen = set(order[:k])
lab = np.array([r["md"]["task"] in chosen for r in R])


def cluster_classical(y, g, rate):
    """statsmodels OLS(y, ones).fit(cov_type='cluster', cov_kwds={'groups': g}, use_t=True) on the labelled runs."""
    codes = np.unique(g, return_inverse=True)[1]
    fit = sm.OLS(np.asarray(y, float), np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    lo, hi = fit.conf_int(alpha=0.05)[0]
    v = fit.params[0]
    if rate:
        v, lo, hi = min(1, max(0, v)), min(1, max(0, lo)), min(1, max(0, hi))
    return {"point": v, "se": fit.bse[0], "ci95": [lo, hi]}


def cluster_ppi(f, y, labelled, g, rate):
    """Cluster-robust PPI++ written from the formulas of ClusterPPIMean's doc
    (Angelopoulos, Duchi and Zrnic 2023 with influence terms summed by
    cluster, lambda cross-fitted over two folds of clusters in sorted
    order), in numpy."""
    f, y, L = np.asarray(f, float), np.asarray(y, float), np.asarray(labelled)
    names = sorted(set(g))
    pos = np.array([names.index(c) for c in g])
    n, nu = L.sum(), (~L).sum()
    a = np.where(L, (y - y[L].mean()) / n, 0.0)
    b = np.where(L, (f - f[L].mean()) / n, -(f - f[~L].mean()) / nu)
    A = np.array([a[pos == c].sum() for c in range(len(names))])
    B = np.array([b[pos == c].sum() for c in range(len(names))])
    lam = []
    for fold in (0, 1):
        other = np.arange(len(names)) % 2 == 1 - fold
        bb = (B[other] ** 2).sum()
        lam.append(min(1, max(0, (A[other] * B[other]).sum() / bb)) if bb > 0 else 0.0)
    li = np.array([lam[p % 2] for p in pos])
    rl, ru = (y - li * f)[L], (li * f)[~L]
    theta = rl.mean() + ru.mean()
    psi = np.where(L, (y - li * f - rl.mean()) / n, (li * f - ru.mean()) / nu)
    S = np.array([psi[pos == c].sum() for c in range(len(names))])
    var = len(names) / (len(names) - 1) * (S ** 2).sum()
    gl = len({c for c, l in zip(g, L) if l})
    t = st.t.ppf(0.975, gl - 1)
    se = math.sqrt(var)
    lo, hi = theta - t * se, theta + t * se
    if rate:
        theta, lo, hi = min(1, max(0, theta)), min(1, max(0, lo)), min(1, max(0, hi))
    return {"point": theta, "se": se, "ci95": [lo, hi], "df": gl - 1, "lambda": float(li.mean())}


g = [r["md"]["task"] for r in R]
gl = [r["md"]["task"] for r, l in zip(R, lab) if l]
est = {"chosen": sorted(chosen), "clusters": G, "labelled_runs": int(lab.sum())}
targets = {
    "pass_rate": ([float(r["deep"]["verdict"] == "pass") for r in R],
                  [(r["light"]["runtime_fidelity"] + r["light"]["task_effectiveness"]) / 200 for r in R], True),
    "runtime_fidelity": ([float(r["deep"]["runtime_fidelity"]) for r in R], [float(r["light"]["runtime_fidelity"]) for r in R], False),
    "task_effectiveness": ([float(r["deep"]["task_effectiveness"]) for r in R], [float(r["light"]["task_effectiveness"]) for r in R], False),
}
for name, (y, f, rate) in targets.items():
    yl = [v for v, l in zip(y, lab) if l]
    est[name] = {"classical": cluster_classical(yl, gl, rate), "ppi": cluster_ppi(f, y, lab, g, rate)}
out["cluster"] = {"estimate": est, "agreement_clustered": clustered_agreement([r for r, l in zip(R, lab) if l])}

json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
