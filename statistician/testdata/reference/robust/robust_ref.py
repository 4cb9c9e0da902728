#!/usr/bin/python3
"""robust_ref.py writes robust_values.json: reference values for the
cluster-robust intervals (statistician/cluster_small.go,
ppi_cluster.go) and the OLS fits with HC3 errors (ols.go,
bias_regression.go), each with its provenance (tool, version, exact
call).

Run with Debian's python (python3-numpy, python3-scipy,
python3-statsmodels) from this directory:

    /usr/bin/python3 robust_ref.py

- CR1 (ClusterClassicalMean): statsmodels OLS(y, ones).fit(cov_type='cluster', use_t=True).
- CR2 with Bell-McCaffrey degrees of freedom (ClusterRobustMean): the
  general matrix formulas of Pustejovsky and Tipton (2018, eq. 7 and
  section 3.2) with numpy: H = X(X'X)^-1 X', A_g = (I - H_gg)^(-1/2) by
  an eigendecomposition, V = (X'X)^-1 sum_g X_g'A_g e_g e_g'A_g X_g (X'X)^-1,
  and the Satterthwaite degrees of freedom from the N x G matrix
  Q = [A_g X_g (X'X)^-1 padded with zeros], Omega = Q'(I - H)Q,
  df = tr(Omega)^2/tr(Omega^2): no closed form is used. When R's
  clubSandwich is installed, coef_test(lm(y ~ 1), vcov = "CR2",
  cluster = g, test = "Satterthwaite") is run too and must agree.
- ClusterRobustAgreement: the Wilson interval with the effective sample
  size min(N, p(1-p)/V_CR2) and the t quantile on those df.
- Cluster-robust PPI++ (ClusterPPIMean): influence functions summed by
  cluster with numpy; lambda also found by scipy.optimize.minimize_scalar
  of the clustered variance, and the two must agree.
- OLS with HC3: statsmodels OLS(y, X).fit(cov_type='HC3', use_t=True).
"""
import json
import math
import os
import shutil
import subprocess
import tempfile

import numpy as np
import scipy
import scipy.optimize
import scipy.stats
import statsmodels
import statsmodels.api as sm

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY = "numpy " + np.__version__
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__


def t_ppf(p, df):
    """Student's t quantile: scipy 1.10's t.ppf (accurate to about 1e-8)
    polished by three Newton steps on scipy.stats.t.cdf, which agrees
    with R's qt to 1e-14."""
    x = scipy.stats.t.ppf(p, df)
    for _ in range(3):
        x -= (scipy.stats.t.cdf(x, df) - p) / scipy.stats.t.pdf(x, df)
    return x


def val(value, tool, call):
    return {"value": float(value), "tool": tool, "call": call}


def floats(a):
    return [float(v) for v in a]


# ------------------------------------------------------------ CR2-BM
def inv_sqrt(m):
    w, v = np.linalg.eigh(m)
    return v @ np.diag(w ** -0.5) @ v.T


def cr2_bm(y, groups, X=None):
    y = np.asarray(y, float)
    n = len(y)
    X = np.ones((n, 1)) if X is None else X
    xtx_inv = np.linalg.inv(X.T @ X)
    H = X @ xtx_inv @ X.T
    beta = xtx_inv @ X.T @ y
    e = y - X @ beta
    names = sorted(set(groups))
    G = len(names)
    Q = np.zeros((n, G))
    meat = 0.0
    for j, g in enumerate(names):
        idx = np.array([i for i in range(n) if groups[i] == g])
        A = inv_sqrt(np.eye(len(idx)) - H[np.ix_(idx, idx)])
        u = X[idx].T @ A @ e[idx]
        meat = meat + np.outer(u, u)
        Q[idx, j] = (A @ X[idx] @ xtx_inv)[:, 0]
    V = xtx_inv @ meat @ xtx_inv
    omega = Q.T @ (np.eye(n) - H) @ Q
    df = np.trace(omega) ** 2 / np.trace(omega @ omega)
    return beta[0], V[0, 0], df


def club_sandwich(sets):
    """clubSandwich::coef_test on every set, or {} when not installed."""
    if not shutil.which("Rscript"):
        return {}, None
    probe = subprocess.run(["Rscript", "-e", "suppressPackageStartupMessages(library(clubSandwich)); "
                            "cat(as.character(packageVersion('clubSandwich')))"], capture_output=True, text=True)
    if probe.returncode != 0:
        return {}, None
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for name, y, g in sets:
            f.write(name + "|" + ",".join(repr(float(v)) for v in y) + "|" + ",".join(g) + "\n")
        path = f.name
    script = os.path.join(HERE, "cr2_clubsandwich.R")
    res = subprocess.run(["Rscript", script, path], capture_output=True, text=True, check=True)
    os.unlink(path)
    out = {}
    for line in res.stdout.splitlines():
        name, se, df = line.split("|")
        out[name] = (float(se), float(df))
    return out, "R clubSandwich " + probe.stdout.strip()


def cluster_sets():
    rng = np.random.RandomState(29)
    out = []

    def draw(name, sizes, p, rho, binary=True):
        a, b = p * (1 / rho - 1), (1 - p) * (1 / rho - 1)
        y, g = [], []
        for j, m in enumerate(sizes):
            pg = rng.beta(a, b)
            for _ in range(m):
                y.append(float(rng.uniform() < pg) if binary else round(pg + rng.normal(0, 0.2), 3))
                g.append("task-%02d" % j)
        out.append((name, y, g))

    draw("equal_6", [8] * 6, 0.8, 0.2)
    draw("unequal_6", [2, 3, 5, 9, 20, 41], 0.8, 0.2)
    draw("unequal_12", list(rng.randint(1, 40, 12)), 0.85, 0.1)
    draw("one_big_8", [60, 5, 5, 6, 4, 5, 7, 5], 0.7, 0.3)
    draw("lognormal_30", list(1 + np.exp(rng.normal(2.3, 1, 30)).astype(int)), 0.8, 0.2)
    draw("scores_unequal_10", list(rng.randint(2, 25, 10)), 0.6, 0.3, binary=False)
    draw("singletons_and_pairs_20", [1, 2] * 10, 0.7, 0.2)
    draw("high_rate_9", [12, 3, 30, 8, 8, 15, 2, 6, 10], 0.95, 0.05)
    return out


def cluster_cases():
    sets = cluster_sets()
    club, club_version = club_sandwich(sets)
    out = []
    for name, y, g in sets:
        y = np.asarray(y)
        mu, v, df = cr2_bm(y, g)
        # Balanced clusters: CR2 equals CR1 and df = G - 1.
        sizes = {k: g.count(k) for k in set(g)}
        if len(set(sizes.values())) == 1:
            G = len(sizes)
            cr1 = G / (G - 1) * sum((y[[i for i in range(len(y)) if g[i] == k]] - mu).sum() ** 2 for k in sizes) / len(y) ** 2
            assert abs(cr1 - v) < 1e-15 and abs(df - (G - 1)) < 1e-9, (name, cr1, v, df)
        call = ("numpy: Pustejovsky and Tipton (2018) eq. 7 with X = ones: A_g = (I - H_gg)^(-1/2) by np.linalg.eigh; "
                "V = sum_g (1'A_g e_g)^2/N^2; Q[:, g] = A_g 1_g/N; Omega = Q'(I - H)Q; df = tr(Omega)^2/tr(Omega^2)")
        t = t_ppf(0.975, df)
        se = math.sqrt(v)
        case = {"name": name, "y": floats(y), "groups": g, "level": 0.95,
                "mean": val(mu, NUMPY, call), "se": val(se, NUMPY, call), "df": val(df, NUMPY, call),
                "lower": val(mu - t * se, NUMPY + ", " + SCIPY, call + "; mean -/+ t_ppf(0.975, df) se"),
                "upper": val(mu + t * se, NUMPY + ", " + SCIPY, call + "; mean -/+ t_ppf(0.975, df) se")}
        if name in club:
            cse, cdf = club[name]
            assert abs(cse - se) < 1e-9 and abs(cdf - df) < 1e-6, (name, cse, se, cdf, df)
            ccall = "coef_test(lm(y ~ 1), vcov = 'CR2', cluster = g, test = 'Satterthwaite')"
            case["se_clubsandwich"] = val(cse, club_version, ccall)
            case["df_clubsandwich"] = val(cdf, club_version, ccall)
        if set(y) <= {0.0, 1.0}:
            p = y.mean()
            n = len(y)
            if 0 < p < 1:
                neff = min(n, p * (1 - p) / v)
            else:
                neff = n * n / sum(s * s for s in sizes.values())
            z2 = t * t
            centre = (p + z2 / (2 * neff)) / (1 + z2 / neff)
            half = t / (1 + z2 / neff) * math.sqrt(p * (1 - p) / neff + z2 / (4 * neff * neff))
            wcall = call + ("; n_eff = min(N, p(1-p)/V) (Kish N^2/sum n_g^2 at p in {0, 1}); Wilson with z = t_ppf(0.975, df): "
                            "centre = (p + t^2/(2 n_eff))/(1 + t^2/n_eff), half = t/(1 + t^2/n_eff) sqrt(p(1-p)/n_eff + t^2/(4 n_eff^2))")
            case["agreement"] = {"effective_n": val(neff, NUMPY, wcall),
                                 "lower": val(max(0, centre - half), NUMPY + ", " + SCIPY, wcall),
                                 "upper": val(min(1, centre + half), NUMPY + ", " + SCIPY, wcall)}
            res = sm.OLS(y, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": np.array([sorted(sizes).index(k) for k in g])},
                                            use_t=True)
            lo, hi = res.conf_int(alpha=0.05)[0]
            ccall = "sm.OLS(y, np.ones(n)).fit(cov_type='cluster', cov_kwds={'groups': g}, use_t=True); conf_int(alpha=0.05)"
            case["cr1"] = {"se": val(res.bse[0], STATSMODELS, ccall), "lower": val(lo, STATSMODELS, ccall),
                           "upper": val(hi, STATSMODELS, ccall), "df": val(res.df_resid_inference, STATSMODELS, ccall + ".df_resid_inference")}
        out.append(case)
    return out, club_version


# ------------------------------------------------------- cluster PPI
def cluster_ppi(f, y, labelled, groups, tune):
    f, y, lab = np.asarray(f, float), np.asarray(y, float), np.asarray(labelled, bool)
    n, nu = lab.sum(), (~lab).sum()
    names = sorted(set(groups))
    gi = np.array([names.index(v) for v in groups])
    G = len(names)
    lam_fold = [0.0, 0.0]
    if tune:
        a_i = np.where(lab, (y - y[lab].mean()) / n, 0.0)
        b_i = np.where(lab, (f - f[lab].mean()) / n, 0.0) - np.where(~lab, (f - f[~lab].mean()) / nu, 0.0)
        A = np.bincount(gi, weights=a_i, minlength=G)
        B = np.bincount(gi, weights=b_i, minlength=G)
        for k in (0, 1):
            other = np.arange(G) % 2 == 1 - k

            def crit(lam):
                return np.sum((A[other] - lam * B[other]) ** 2)

            den = np.sum(B[other] ** 2)
            lam_fold[k] = float(np.clip(np.sum(A[other] * B[other]) / den, 0, 1)) if den > 0 else 0.0
            opt = scipy.optimize.minimize_scalar(crit, bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
            assert abs(opt.x - lam_fold[k]) < 1e-6 or abs(crit(opt.x) - crit(lam_fold[k])) < 1e-15, (opt.x, lam_fold)
    lam = np.array([lam_fold[g % 2] for g in gi])
    rl = y[lab] - lam[lab] * f[lab]
    ru = lam[~lab] * f[~lab] if tune else np.zeros(0)
    theta = rl.mean() + (ru.mean() if len(ru) else 0.0)
    psi = np.zeros(len(f))
    psi[lab] = (rl - rl.mean()) / n
    if tune and len(ru):
        psi[~lab] = (ru - ru.mean()) / nu
    S = np.bincount(gi, weights=psi, minlength=G)
    var = G / (G - 1) * np.sum(S ** 2)
    gl = len(set(np.asarray(groups)[lab]))
    se = math.sqrt(var)
    t = t_ppf(0.975, gl - 1)
    return lam.mean(), theta, se, theta - t * se, theta + t * se, gl - 1, np.var(y[lab], ddof=1) / se ** 2


def ppi_cases():
    rng = np.random.RandomState(2029)
    out = []
    call = ("numpy: clusters in sorted order, fold k = positions k, k+2, ...; A_g = sum_{L,g} (y - mean_L(y))/n, "
            "B_g = sum_{L,g} (f - mean_L(f))/n - sum_{U,g} (f - mean_U(f))/N_u; lam_k = clip(sum_{other fold} A B/sum_{other fold} B^2, 0, 1) "
            "(checked against scipy.optimize.minimize_scalar); lam_i = lam of run i's fold; theta = mean_L(y - lam f) + mean_U(lam f); "
            "psi = (y - lam f - mean_L(.))/n on L, (lam f - mean_U(.))/N_u on U; S_g = sum of psi over cluster g; "
            "Var = G/(G-1) sum S_g^2; CI = theta -/+ t_ppf(0.975, G_L - 1) se, G_L = clusters with a deep label; "
            "lambda = mean of lam_i over all runs; effective_n = var(y_L, ddof=1)/se^2")
    for name, G, m, frac, policy in (("item_30x20", 30, 20, 0.3, "item"), ("cluster_40x8", 40, 8, 0.4, "cluster"),
                                     ("item_unequal_12", 12, 0, 0.5, "item"), ("item_scores_15x6", 15, 6, 0.4, "item")):
        f, y, lab, g = [], [], [], []
        for j in range(G):
            pj = rng.beta(1.6, 0.7)
            size = m or rng.randint(2, 30)
            lab_c = rng.uniform() < frac
            for _ in range(size):
                if "scores" in name:
                    yi = round(float(np.clip(pj + rng.normal(0, 0.15), 0, 1)), 3)
                    fi = round(float(np.clip(0.8 * yi + 0.1 + rng.normal(0, 0.1), 0, 1)), 3)
                else:
                    yi = float(rng.uniform() < pj)
                    fi = yi if rng.uniform() < 0.85 else 1 - yi
                f.append(fi)
                y.append(yi)
                g.append("c%02d" % j)
                lab.append(bool(rng.uniform() < frac) if policy == "item" else bool(lab_c))
        for tune in (True, False):
            if tune:
                lam, theta, se, lo, hi, df, ess = cluster_ppi(f, y, lab, g, True)
                yy, ll, gg, ff = y, lab, g, f
            else:
                yl = [y[i] for i in range(len(y)) if lab[i]]
                gl = [g[i] for i in range(len(y)) if lab[i]]
                lam, theta, se, lo, hi, df, ess = cluster_ppi(yl, yl, [True] * len(yl), gl, False)
                yy, ll, gg, ff = yl, [True] * len(yl), gl, yl
                res = sm.OLS(np.asarray(yl), np.ones(len(yl))).fit(
                    cov_type="cluster", cov_kwds={"groups": np.array([sorted(set(gl)).index(v) for v in gl])}, use_t=True)
                assert abs(res.bse[0] - se) < 1e-12, (res.bse[0], se)
            tool = NUMPY + ", " + SCIPY + (", " + STATSMODELS if not tune else "")
            c = call + ("" if tune else "; lam = 0, se equal to statsmodels OLS(y_L, ones).fit(cov_type='cluster', use_t=True).bse")
            out.append({"name": name + ("_ppi" if tune else "_classical"), "tune": tune, "f": floats(ff), "y": floats(yy),
                        "labelled": ll, "groups": gg, "level": 0.95,
                        "lambda": val(lam, tool, c), "value": val(theta, tool, c), "se": val(se, tool, c),
                        "lower": val(lo, tool, c), "upper": val(hi, tool, c), "df": val(df, tool, c),
                        "effective_n": val(ess, tool, c)})
    return out


# --------------------------------------------------------------- HC3
def hc3_cases():
    rng = np.random.RandomState(3)
    out = []
    call = "sm.OLS(y, X).fit(cov_type='HC3', use_t=True): params, bse, tvalues, pvalues, conf_int(alpha=0.05)"

    def fit(name, X, y, names):
        res = sm.OLS(y, X).fit(cov_type="HC3", use_t=True)
        ci = res.conf_int(alpha=0.05)
        coefs = []
        for j, nm in enumerate(names):
            coefs.append({"name": nm, "estimate": val(res.params[j], STATSMODELS, call), "se": val(res.bse[j], STATSMODELS, call),
                          "t": val(res.tvalues[j], STATSMODELS, call), "p": val(res.pvalues[j], STATSMODELS, call),
                          "lower": val(ci[j][0], STATSMODELS, call), "upper": val(ci[j][1], STATSMODELS, call)})
        return {"name": name, "x": [floats(r) for r in X], "y": floats(y), "names": names, "level": 0.95,
                "df": int(res.df_resid), "coefficients": coefs}

    n = 40
    x1 = rng.normal(size=n)
    X = np.column_stack([np.ones(n), x1])
    y = 1 + 0.5 * x1 + rng.normal(size=n) * (0.5 + np.abs(x1))
    out.append(fit("simple_heteroskedastic", X, y, ["intercept", "x"]))
    n = 12
    X = np.column_stack([np.ones(n), rng.uniform(0, 3, n), (rng.uniform(size=n) < 0.5).astype(float)])
    y = X @ [0.1, -0.2, 0.3] + rng.normal(0, 0.3, n)
    out.append(fit("small_n12", X, y, ["intercept", "a", "b"]))
    # A bias-regression design: the Go test rebuilds it with BiasRegression.
    runs = []
    for i in range(150):
        s = ["alpha", "beta", "gamma"][rng.randint(3)]
        loglen = 6 + 0.8 * rng.normal()
        same = bool(rng.uniform() < 0.3)
        deep = round(float(rng.uniform()), 4)
        gap = 0.05 + 0.04 * (loglen - 6) + (0.03 if same else 0) + {"alpha": 0, "beta": 0.02, "gamma": -0.04}[s] \
            + rng.normal(0, 0.1 + 0.05 * abs(loglen - 6))
        light = round(deep + gap, 4)
        lp, dp = bool(rng.uniform() < 0.6 + 0.05 * (loglen - 6)), bool(rng.uniform() < 0.5)
        length = float(round(math.exp(loglen)))
        runs.append({"light_score": light, "deep_score": deep, "light_pass": lp, "deep_pass": dp,
                     "length": length, "same_family": same, "slice": s})
    names = ["intercept", "log_length", "same_family", "slice:beta", "slice:gamma"]
    X = np.array([[1, math.log(r["length"]), float(r["same_family"]), float(r["slice"] == "beta"), float(r["slice"] == "gamma")]
                  for r in runs])
    gap = np.array([r["light_score"] - r["deep_score"] for r in runs])
    lenient = np.array([float(r["light_pass"] and not r["deep_pass"]) for r in runs])
    bias = {"runs": runs, "score_gap": fit("bias_score_gap", X, gap, names), "leniency": fit("bias_leniency", X, lenient, names)}
    return out, bias


def main():
    clusters, club_version = cluster_cases()
    hc3, bias = hc3_cases()
    doc = {
        "provenance": {"script": "robust_ref.py",
                       "tools": [NUMPY, SCIPY, STATSMODELS, club_version or "R clubSandwich not installed: no clubSandwich values"]},
        "cluster_mean": clusters,
        "cluster_ppi": ppi_cases(),
        "hc3": hc3,
        "bias": bias,
    }
    with open(os.path.join(HERE, "robust_values.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
