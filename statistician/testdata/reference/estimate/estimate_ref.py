#!/usr/bin/python3
"""estimate_ref.py writes estimate_values.json: reference values for the
estimation half of evalcal's scoring core (statistician/estimate.go,
ppi.go, ipw.go, rogangladen.go, mcnemar.go, cluster.go, fleiss.go,
plan.go, plan_assurance.go), each with its provenance (tool, version, exact call).

Run with Debian's python (python3-numpy, python3-scipy,
python3-statsmodels) from this directory:

    /usr/bin/python3 estimate_ref.py

The estimators are written here from the papers' formulas with numpy, not
from the Go code; where a closed form could share a mistake with the Go
code, a second route checks it inside this script (a numerical minimiser
for PPI++'s lambda, the paper's printed form for IPW at lambda = 1, a
brute-force scan for the planners) and the script stops if the two
disagree.
"""
import json
import math
import os

import numpy as np
import scipy
import scipy.optimize
import scipy.stats
import statsmodels
import statsmodels.api as sm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY = "numpy " + np.__version__
SCIPY = "scipy " + scipy.__version__
STATSMODELS = "statsmodels " + statsmodels.__version__


def val(value, tool, call):
    return {"value": float(value), "tool": tool, "call": call}


def floats(a):
    return [float(v) for v in a]


# ---------------------------------------------------------------- PPI++
# Angelopoulos, Duchi, Zrnic (2023), arXiv 2311.01453, mean estimation:
# theta = mean(Y) + lam (mean(f_u) - mean(f_l)); plug-in variance
# Var(Y - lam f_l)/n + lam^2 Var(f_u)/N_u (ddof=1); lam minimises it on
# [0, 1]. lam is cross-fitted over two folds of the labelled runs (even
# and odd positions): fold k uses the lam tuned on the other fold.

def ppi_lambda(y, fl, fu, n_total):
    """lam minimising Var_S(y - lam f)/n + lam^2 Var(fu)/N_u on [0, 1]."""
    nu = len(fu)
    crit = lambda lam: np.var(y - lam * fl, ddof=1) / n_total + lam ** 2 * np.var(fu, ddof=1) / nu
    cov = np.cov(y, fl, ddof=1)[0, 1]
    den = np.var(fl, ddof=1) + n_total / nu * np.var(fu, ddof=1)
    lam = float(np.clip(cov / den, 0, 1)) if den > 0 else 0.0
    # Second route: minimise the criterion numerically.
    opt = scipy.optimize.minimize_scalar(crit, bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
    assert abs(opt.x - lam) < 1e-6 or abs(crit(opt.x) - crit(lam)) < 1e-15, (opt.x, lam)
    return lam


def ppi_ref(name, y, fl, fu, level):
    y, fl, fu = np.asarray(y, float), np.asarray(fl, float), np.asarray(fu, float)
    n, nu = len(y), len(fu)
    folds = [np.arange(n) % 2 == 0, np.arange(n) % 2 == 1]
    lam = [ppi_lambda(y[folds[1 - k]], fl[folds[1 - k]], fu, n) for k in (0, 1)]
    nk = [folds[k].sum() for k in (0, 1)]
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    if lam == [0.0, 0.0]:
        lam_bar, theta, se = 0.0, y.mean(), math.sqrt(np.var(y, ddof=1) / n)
    else:
        r = [y[folds[k]] - lam[k] * fl[folds[k]] for k in (0, 1)]
        lam_bar = (nk[0] * lam[0] + nk[1] * lam[1]) / n
        theta = (nk[0] * r[0].mean() + nk[1] * r[1].mean()) / n + lam_bar * fu.mean()
        se = math.sqrt((nk[0] * np.var(r[0], ddof=1) + nk[1] * np.var(r[1], ddof=1)) / n ** 2
                       + lam_bar ** 2 * np.var(fu, ddof=1) / nu)
    ess = np.var(y, ddof=1) / se ** 2
    call = ("numpy: folds = even/odd positions; lam_k = clip(cov(y,fl,ddof=1)/(var(fl,ddof=1) + n/N_u var(fu,ddof=1)), 0, 1) "
            "on the other fold (checked against scipy.optimize.minimize_scalar of Var(y - lam fl)/n + lam^2 Var(fu)/N_u); "
            "r = y - lam_k fl; lam_bar = (n_0 lam_0 + n_1 lam_1)/n; theta = mean(r) + lam_bar mean(fu); "
            "se = sqrt((n_0 var(r_0) + n_1 var(r_1))/n^2 + lam_bar^2 var(fu)/N_u); z = scipy.stats.norm.ppf(1 - (1-level)/2)")
    tool = NUMPY + ", " + SCIPY
    return {
        "name": name, "y": floats(y), "f_labelled": floats(fl), "f_unlabelled": floats(fu), "level": level,
        "lambda": val(lam_bar, tool, call), "value": val(theta, tool, call), "se": val(se, tool, call),
        "lower": val(theta - z * se, tool, call), "upper": val(theta + z * se, tool, call),
        "effective_n": val(ess, tool, "var(y, ddof=1)/se^2 with " + call),
    }


def ppi_cases():
    rng = np.random.RandomState(20260901)
    out = []

    def binary(p, n, nu, mu0, mu1, sd):
        y = (rng.uniform(size=n + nu) < p).astype(float)
        f = np.clip(np.where(y == 1, mu1, mu0) + rng.normal(0, sd, n + nu), 0, 1)
        f = np.round(f, 4)
        return y[:n], f[:n], f[n:]

    y, fl, fu = binary(0.3, 60, 340, 0.25, 0.75, 0.12)
    out.append(ppi_ref("rate_strong", y, fl, fu, 0.95))
    y, fl, fu = binary(0.5, 80, 920, 0.4, 0.6, 0.2)
    out.append(ppi_ref("rate_weak", y, fl, fu, 0.95))
    out.append(ppi_ref("rate_weak_level90", y, fl, fu, 0.90))
    y, fl, fu = binary(0.2, 150, 1350, 0.45, 0.55, 0.2)
    out.append(ppi_ref("rate_noisy_interior_lambda", y, fl, fu, 0.95))
    d = np.clip(np.round(rng.normal(62, 18, 700), 1), 0, 100)
    light = np.clip(np.round(0.8 * d + 8 + rng.normal(0, 9, 700), 1), 0, 100)
    out.append(ppi_ref("score_mean", d[:90], light[:90], light[90:], 0.95))
    y, fl, fu = binary(0.4, 50, 150, 0.7, 0.3, 0.15)  # light predicts the opposite
    out.append(ppi_ref("negative_covariance_lambda_0", y, fl, fu, 0.95))
    y = (rng.uniform(size=300) < 0.5).astype(float)
    f = np.round(0.2 * y + 0.4 + rng.normal(0, 0.01, 300), 4)  # cov/var ~ 5
    out.append(ppi_ref("underscaled_lambda_1", y[:40], f[:40], f[40:], 0.95))
    out.append(ppi_ref("tiny_hand", [1, 0, 1, 1, 0], [0.9, 0.2, 0.6, 0.7, 0.4], [0.8, 0.1, 0.7, 0.3], 0.95))
    return out


# ---------------------------------------------------------------- finite set of runs
# The target is the mean over the N = n + N_u runs at hand, the n labelled
# ones a simple random sample without replacement (Cochran 1977,
# "Sampling Techniques", 2.4-2.5, 3.2, 7.2). PPI++'s value is unchanged;
# with f known on every run it is the difference estimator
# theta = lam_bar (N/N_u) mean(f_all) + mean(e), e = y - (lam_k + lam_bar n/N_u) f,
# whose design variance is (1 - n/N) (n_0 var(e_0) + n_1 var(e_1))/n^2.

def srswor_check():
    """Second route for the difference estimator's variance: on a small
    population, enumerate every sample of size n and check that the
    formula (1 - n/N) var(y - b f)/n, averaged over the samples, equals the
    exact variance of mean(y - b f) + b mean(f_all) over them (it is
    unbiased under simple random sampling without replacement)."""
    import itertools
    rng = np.random.RandomState(7)
    N, n, b = 9, 4, 0.7
    y = (rng.uniform(size=N) < 0.5).astype(float)
    f = np.round(0.3 + 0.4 * y + rng.normal(0, 0.1, N), 3)
    est, vhat = [], []
    for idx in itertools.combinations(range(N), n):
        idx = list(idx)
        e = y[idx] - b * f[idx]
        est.append(e.mean() + b * f.mean())
        vhat.append((1 - n / N) * np.var(e, ddof=1) / n)
    est = np.array(est)
    assert abs(est.mean() - y.mean()) < 1e-12
    assert abs(np.mean(vhat) - np.var(est)) < 1e-12, (np.mean(vhat), np.var(est))


def ppi_runs_ref(name, y, fl, fu, level):
    y, fl, fu = np.asarray(y, float), np.asarray(fl, float), np.asarray(fu, float)
    n, nu = len(y), len(fu)
    N = n + nu
    base = ppi_ref(name, y, fl, fu, level)
    lam_bar = base["lambda"]["value"]
    theta = base["value"]["value"]
    folds = [np.arange(n) % 2 == 0, np.arange(n) % 2 == 1]
    if lam_bar == 0.0:
        var = (1 - n / N) * np.var(y, ddof=1) / n
    else:
        lam = [ppi_lambda(y[folds[1 - k]], fl[folds[1 - k]], fu, n) for k in (0, 1)]
        e = [y[folds[k]] - (lam[k] + lam_bar * n / nu) * fl[folds[k]] for k in (0, 1)]
        var = (1 - n / N) * sum(len(e[k]) * np.var(e[k], ddof=1) for k in (0, 1)) / n ** 2
        # the difference-estimator form gives PPI++'s value
        f_all = np.concatenate([fl, fu])
        alt = lam_bar * N / nu * f_all.mean() + sum(e[k].sum() for k in (0, 1)) / n
        assert abs(alt - theta) < 1e-9, (alt, theta)
    se = math.sqrt(var)
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    s2 = np.var(y, ddof=1)
    tool = NUMPY + ", " + SCIPY
    call = ("numpy: lam_k and lam_bar as in ppi; e = y - (lam_k + lam_bar n/N_u) fl per fold; "
            "se = sqrt((1 - n/N)(n_0 var(e_0) + n_1 var(e_1))/n^2) (lam_bar = 0: sqrt((1 - n/N) var(y)/n)); "
            "checked: unbiased over every sample of a 9-run population; z = scipy.stats.norm.ppf(1 - (1-level)/2)")
    out = dict(base)
    out.update({"value": val(theta, tool, call), "se": val(se, tool, call),
                "lower": val(theta - z * se, tool, call), "upper": val(theta + z * se, tool, call),
                "effective_n": val(s2 / (var + s2 / N), tool, "var(y, ddof=1)/(se^2 + var(y, ddof=1)/N) with " + call)})
    return out


def ppi_runs_cases():
    srswor_check()
    return [ppi_runs_ref(c["name"], c["y"], c["f_labelled"], c["f_unlabelled"], c["level"]) for c in ppi_cases()]


def wilson_fpc(k, n, N, z):
    """Wilson's interval inverted with the SRSWOR variance (N-n)/(N-1) P(1-P)/n:
    the closed form at z' = z sqrt((N-n)/(N-1)), checked by solving
    (p - P)^2 = z^2 (N-n)/(N-1) P(1-P)/n for P with scipy.optimize.brentq."""
    p = k / n
    zz = z * math.sqrt((N - n) / (N - 1))
    den = 1 + zz ** 2 / n
    c = (p + zz ** 2 / (2 * n)) / den
    h = zz / den * math.sqrt(p * (1 - p) / n + zz ** 2 / (4 * n ** 2))
    lo, hi = max(0.0, c - h), min(1.0, c + h)
    g = lambda P: (p - P) ** 2 - z ** 2 * (N - n) / (N - 1) * P * (1 - P) / n
    if 0 < p < 1:
        assert abs(scipy.optimize.brentq(g, 1e-15, p) - lo) < 1e-10
        assert abs(scipy.optimize.brentq(g, p, 1 - 1e-15) - hi) < 1e-10
    return lo, hi, math.sqrt((N - n) / (N - 1) * p * (1 - p) / n)


def classical_runs_cases():
    out = []
    z = scipy.stats.norm.ppf(0.975)
    for k, n, N in [(18, 30, 120), (18, 30, 31), (3, 40, 160), (0, 25, 100), (50, 200, 400)]:
        lo, hi, se = wilson_fpc(k, n, N, z)
        call = "closed-form Wilson at z sqrt((N-n)/(N-1)), z = scipy.stats.norm.ppf(0.975), checked by scipy.optimize.brentq on (p-P)^2 = z^2 (N-n)/(N-1) P(1-P)/n"
        out.append({"name": "rate %d/%d of %d" % (k, n, N), "y": [1.0] * k + [0.0] * (n - k), "runs": N, "level": 0.95, "rate": True,
                    "value": val(k / n, NUMPY, "k/n"), "se": val(se, SCIPY, call),
                    "lower": val(lo, SCIPY, call), "upper": val(hi, SCIPY, call)})
    rng = np.random.RandomState(20260903)
    for n, N in [(12, 40), (60, 240), (100, 200)]:
        y = np.round(rng.normal(62, 18, n), 1)
        m, s = y.mean(), np.std(y, ddof=1)
        se = s / math.sqrt(n) * math.sqrt(1 - n / N)
        t = scipy.stats.t.ppf(0.975, n - 1)
        call = "se = std(y, ddof=1)/sqrt(n) sqrt(1 - n/N); mean ± scipy.stats.t.ppf(0.975, n-1) se"
        out.append({"name": "mean n=%d of %d" % (n, N), "y": floats(y), "runs": N, "level": 0.95, "rate": False,
                    "value": val(m, NUMPY, "mean(y)"), "se": val(se, SCIPY, call),
                    "lower": val(m - t * se, SCIPY, call), "upper": val(m + t * se, SCIPY, call)})
    return out


# ---------------------------------------------------------------- StratPPI
# Fisch et al. (2024), arXiv 2406.04291: theta = sum_h w_h theta_h,
# Var = sum_h w_h^2 Var_h, w_h = N_h/N, theta_h and Var_h the per-stratum
# PPI++ (cross-fitted lambda_h) for the mean over the stratum's runs
# (ppi_runs_ref above). A fully labelled stratum adds its mean exactly; a
# 0/1 stratum whose labels are all equal gets (1 - n/N_h) q(1-q)/n,
# q = (x + 1/2)/(n + 1). The interval takes the Student t quantile at the
# Welch-Satterthwaite degrees of freedom (Satterthwaite 1946; Cochran 1977,
# 5A.3): df = (sum_h a_h)^2 / sum_h a_h^2/(n_h - 1), a_h = w_h^2 Var_h, over
# the strata with a variance term.

def strat_ref(name, strata, level):
    N = sum(len(st[0]) + len(st[2]) for st in strata)
    theta = var = lam = 0.0
    terms = []  # (w_h^2 Var_h, n_h) for the Satterthwaite df
    ys = []
    for y, fl, fu in strata:
        y, fl, fu = np.asarray(y, float), np.asarray(fl, float), np.asarray(fu, float)
        nh = len(y) + len(fu)
        w = nh / N
        ys.extend(y)
        if len(fu) == 0:
            theta += w * y.mean()
            continue
        if np.all(y == y[0]):
            q = (y.sum() + 0.5) / (len(y) + 1)
            theta += w * y.mean()
            a = w ** 2 * (1 - len(y) / nh) * q * (1 - q) / len(y)
            var += a
            terms.append((a, len(y)))
            continue
        r = ppi_runs_ref("s", y, fl, fu, level)
        theta += w * r["value"]["value"]
        var += w ** 2 * r["se"]["value"] ** 2
        terms.append((w ** 2 * r["se"]["value"] ** 2, len(y)))
        lam += w * r["lambda"]["value"]
    se = math.sqrt(var)
    df = sum(a for a, _ in terms) ** 2 / sum(a ** 2 / (n - 1) for a, n in terms)
    z = scipy.stats.t.ppf(1 - (1 - level) / 2, df)
    s2 = np.var(ys, ddof=1)
    tool = NUMPY + ", " + SCIPY
    call = ("sum_h (N_h/N) ppi_runs(stratum h); se = sqrt(sum_h (N_h/N)^2 se_h^2); constant 0/1 stratum: (1-n/N_h) q(1-q)/n, q = (x+1/2)/(n+1); "
            "value ± scipy.stats.t.ppf(1 - (1-level)/2, df) se, df = (sum a_h)^2/sum a_h^2/(n_h-1), a_h = (N_h/N)^2 se_h^2 (Welch-Satterthwaite)")
    return {"name": name, "strata": [{"y": floats(y), "f_labelled": floats(fl), "f_unlabelled": floats(fu)} for y, fl, fu in strata],
            "level": level, "lambda": val(lam, tool, call), "value": val(theta, tool, call), "se": val(se, tool, call),
            "lower": val(theta - z * se, tool, call), "upper": val(theta + z * se, tool, call),
            "effective_n": val(s2 / (var + s2 / N), tool, "var(all y, ddof=1)/(se^2 + var/N) with " + call)}


def strat_cases():
    rng = np.random.RandomState(20260904)

    def stratum(p, n, nu, mu0, mu1, sd):
        y = (rng.uniform(size=n + nu) < p).astype(float)
        f = np.round(np.clip(np.where(y == 1, mu1, mu0) + rng.normal(0, sd, n + nu), 0, 1), 4)
        return y[:n], f[:n], f[n:]

    out = [strat_ref("three_strata", [stratum(0.8, 40, 300, 0.3, 0.8, 0.15), stratum(0.2, 60, 500, 0.3, 0.7, 0.2),
                                      stratum(0.5, 30, 120, 0.4, 0.6, 0.2)], 0.95)]
    y, fl, fu = stratum(0.5, 25, 200, 0.3, 0.7, 0.15)
    const = (np.zeros(12), np.round(rng.uniform(0, 0.3, 12), 4), np.round(rng.uniform(0, 0.3, 90), 4))
    full = (np.array([1.0, 0.0, 1.0]), np.array([0.9, 0.2, 0.7]), np.array([]))
    out.append(strat_ref("constant_and_full_strata", [(y, fl, fu), const, full], 0.90))
    # Under a uniform subset: the stratified interval, or PPI++ over all
    # runs when its interval is the narrower (one case of each).
    two = [stratum(0.9, 30, 270, 0.3, 0.8, 0.1), stratum(0.15, 70, 630, 0.3, 0.8, 0.1)]
    weak = [stratum(0.5, 40, 400, 0.4, 0.6, 0.2), stratum(0.45, 40, 400, 0.4, 0.6, 0.2)]
    out += [strat_uniform_ref("uniform_strata_help", two, 0.95), strat_uniform_ref("uniform_strata_do_not_help", weak, 0.95)]
    assert [c["pooled"] for c in out[-2:]] == [False, True], [c["pooled"] for c in out[-2:]]
    return out


def strat_uniform_ref(name, strata, level):
    """StratPPIMeanOfRunsUniform: the stratified estimate (strat_ref) unless
    PPI++ for the runs over all strata as one (ppi_runs_ref on the strata's
    runs in order) has the narrower interval."""
    st = strat_ref(name, strata, level)
    y = np.concatenate([np.asarray(a, float) for a, _, _ in strata])
    fl = np.concatenate([np.asarray(b, float) for _, b, _ in strata])
    fu = np.concatenate([np.asarray(c, float) for _, _, c in strata])
    p = ppi_runs_ref(name, y, fl, fu, level)
    width = lambda r: r["upper"]["value"] - r["lower"]["value"]
    out = dict(st)
    out["uniform"] = True
    out["pooled"] = bool(width(p) < width(st))
    if out["pooled"]:
        for k in ("lambda", "value", "se", "lower", "upper", "effective_n"):
            out[k] = dict(p[k], call="pooled (PPI++ interval narrower than the stratified one): " + p[k]["call"])
    return out


# ---------------------------------------------------------------- IPW
# Zrnic and Candes (2024), arXiv 2403.03208, mean estimation with known
# inclusion probabilities pi and xi ~ Bernoulli(pi):
#   (1/N) sum [lam f + (y - lam f) xi/pi]
# in its Hajek form (Sarndal, Swensson and Wretman 1992, the difference
# estimator): theta = lam mean(f) + sum w (y - lam f)/sum w, w = xi/pi;
# lam minimises the variance of the influence terms
#   psi = lam (f - mu_f) + (w/wbar)((y - lam f) - mu_r).

def ipw_fold(lam, f, y, w, pi):
    """Estimate and its design variance on one fold at a fixed lam: the
    Hajek mean of r = y - lam f under Poisson sampling, linearised
    (Sarndal, Swensson and Wretman 1992, 5.7.4, Delta_kl = 0 for k != l):
    V = sum_lab (1 - pi)/pi^2 (r - rH)^2 / (sum w)^2; f is known on every
    run and the target is the mean over these runs."""
    lab = w > 0
    r = y - lam * f
    rh = np.sum(w * r) / np.sum(w)
    v = np.sum((1 - pi[lab]) / pi[lab] ** 2 * (r[lab] - rh) ** 2) / np.sum(w) ** 2
    # Second route: the ratio estimator's linearised variance (Cochran
    # 1977, 6.2) from the Horvitz-Thompson variances and covariance of the
    # totals t_r = sum w r and N_hat = sum w under Poisson sampling,
    # V(t_a) = sum_lab (1 - pi)/pi^2 a^2: (V(t_r) - 2 R C(t_r, N_hat) + R^2 V(N_hat))/N_hat^2.
    q = (1 - pi[lab]) / pi[lab] ** 2
    rl = r[lab]
    v2 = (np.sum(q * rl ** 2) - 2 * rh * np.sum(q * rl) + rh ** 2 * np.sum(q)) / np.sum(w) ** 2
    assert abs(v - v2) <= 1e-9 * max(v, 1e-300), (v, v2)
    return lam * f.mean() + rh, v


def ipw_lambda(f, y, pi, xi):
    # Both moments by Horvitz-Thompson sums over the labelled runs only:
    # an unlabelled run's pi is never read (issue 20).
    lab = xi == 1
    f_, y_, pi_ = f[lab], y[lab], pi[lab]
    yh = np.sum(y_ / pi_) / np.sum(1 / pi_)
    df = f_ - f.mean()
    num = np.sum((y_ - yh) * df * (1 - pi_) / pi_ ** 2)
    den = np.sum(df ** 2 * (1 - pi_) / pi_ ** 2)
    return float(np.clip(num / den, 0, 1)) if den > 0 else 0.0


def ipw_ref(name, f, y, pi, xi, level):
    f, y, pi, xi = (np.asarray(a, float) for a in (f, y, pi, xi))
    y = np.where(xi == 1, y, 0.0)
    pi_json = pi
    pi = np.where(xi == 1, pi, np.nan)  # an unlabelled run's pi must not matter
    w = np.where(xi == 1, 1 / np.where(xi == 1, pi, 1), 0.0)
    N, n = len(f), int(xi.sum())
    # At lam = 1 on all runs the estimate differs from the paper's printed
    # form (1/N) sum [f + (y - f) xi/pi] only by normalising the rectifier
    # by sum w instead of N.
    printed = np.mean(f + (y - f) * w)
    hajek1, _ = ipw_fold(1.0, f, y, w, pi)
    assert abs((hajek1 - f.mean()) * np.sum(w) / N - (printed - f.mean())) < 1e-9 * max(1, abs(printed))
    folds = [np.arange(N) % 2 == 0, np.arange(N) % 2 == 1]
    lam = [0.0, 0.0]
    if all(xi[fd].sum() >= 2 for fd in folds):
        lam = [ipw_lambda(f[folds[1 - k]], y[folds[1 - k]], pi[folds[1 - k]], xi[folds[1 - k]]) for k in (0, 1)]
    if lam == [0.0, 0.0]:
        lam_bar = 0.0
        theta, var = ipw_fold(0.0, f, y, w, pi)
    else:
        theta = var = lam_bar = 0.0
        for k in (0, 1):
            fd = folds[k]
            t, v = ipw_fold(lam[k], f[fd], y[fd], w[fd], pi[fd])
            share = fd.sum() / N
            theta += share * t
            var += share ** 2 * v
            lam_bar += share * lam[k]
    se = math.sqrt(var)
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    lab = xi == 1
    yh = np.sum(w * y) / np.sum(w)
    wv = np.sum(w[lab] * (y[lab] - yh) ** 2) / np.sum(w[lab]) * n / (n - 1)
    tool = NUMPY + ", " + SCIPY
    call = ("numpy: w = xi/pi; folds = even/odd positions; lam_k = clip(sum(xi (y-yH)(f-mean f)(1-pi)/pi^2)/sum(xi (f-mean f)^2 (1-pi)/pi^2), 0, 1) "
            "on the other fold; per fold: theta_k = lam_k mean(f) + rH, rH = sum(w (y - lam_k f))/sum(w), "
            "var_k = sum_lab((1-pi)/pi^2 (y - lam_k f - rH)^2)/sum(w)^2 (checked against the ratio estimator's linearised variance, Cochran 6.2); "
            "theta = sum (N_k/N) theta_k, se = sqrt(sum (N_k/N)^2 var_k); z = scipy.stats.norm.ppf(1 - (1-level)/2)")
    return {
        "name": name, "f": floats(f), "y": floats(y), "pi": floats(pi_json), "labelled": [bool(v) for v in xi], "level": level,
        "lambda": val(lam_bar, tool, call), "value": val(theta, tool, call), "se": val(se, tool, call),
        "lower": val(theta - z * se, tool, call), "upper": val(theta + z * se, tool, call),
        "effective_n": val(wv / (var + wv / N), tool, "s2/(se^2 + s2/N), s2 the weighted label variance, with " + call),
    }


def ipw_cases():
    rng = np.random.RandomState(20260902)
    out = []

    def draw(N, p, mu0, mu1, sd, frac, uncertain):
        y = (rng.uniform(size=N) < p).astype(float)
        f = np.round(np.clip(np.where(y == 1, mu1, mu0) + rng.normal(0, sd, N), 0, 1), 4)
        if uncertain:
            u = 1 - np.abs(2 * f - 1)
            pi = np.minimum(1, frac * (0.3 + 0.7 * u / u.mean()))
        else:
            pi = np.full(N, frac)
        pi = np.round(pi, 6)
        xi = (rng.uniform(size=N) < pi).astype(float)
        return f, y, pi, xi

    out.append(ipw_ref("uncertain_strong", *draw(600, 0.3, 0.25, 0.75, 0.15, 0.15, True), 0.95))
    out.append(ipw_ref("uncertain_weak", *draw(800, 0.5, 0.4, 0.6, 0.2, 0.1, True), 0.95))
    out.append(ipw_ref("uniform_weak_level90", *draw(500, 0.2, 0.4, 0.6, 0.2, 0.2, False), 0.90))
    d = np.clip(np.round(rng.normal(62, 18, 500), 1), 0, 100)
    light = np.clip(np.round(0.8 * d + 8 + rng.normal(0, 9, 500), 1), 0, 100)
    pi = np.round(np.clip(0.05 + 0.3 * np.exp(-((light - 70) / 15) ** 2), 0.05, 1), 6)
    xi = (rng.uniform(size=500) < pi).astype(float)
    out.append(ipw_ref("score_mean_uncertain", light, d, pi, xi, 0.95))
    out.append(ipw_ref("tiny_hand", [0.9, 0.2, 0.6, 0.8, 0.1, 0.5, 0.3, 0.7], [1, 0, 1, 0, 0, 1, 0, 1],
                       [0.5, 0.5, 0.25, 1, 0.5, 0.8, 0.6, 0.9], [1, 1, 1, 0, 0, 1, 1, 1], 0.95))
    return out


# ---------------------------------------------------------------- Rogan-Gladen
# Rogan and Gladen (1978): p = (p_obs + Sp - 1)/(Se + Sp - 1), clipped to [0, 1].

def rg_ref(both, light_only, deep_only, neither, up, un):
    se = both / (both + deep_only)
    sp = neither / (neither + light_only)
    p_obs = (both + light_only + up) / (both + light_only + deep_only + neither + un)
    p = min(1.0, max(0.0, (p_obs + sp - 1) / (se + sp - 1)))
    call = "python: Se = a/(a+c), Sp = d/(d+b), p_obs = (a+b+u)/(n+N_u), p = clip((p_obs+Sp-1)/(Se+Sp-1), 0, 1)"
    return {"counts": [both, light_only, deep_only, neither], "unlabelled_pass": up, "unlabelled_n": un,
            "sensitivity": val(se, "python", call), "specificity": val(sp, "python", call),
            "youden_j": val(se + sp - 1, "python", call), "value": val(p, "python", call)}


def rg_cases():
    return [
        rg_ref(40, 12, 8, 140, 700, 1800),
        rg_ref(18, 3, 2, 77, 410, 1900),
        rg_ref(9, 30, 1, 60, 380, 900),     # lenient light: p_obs far above deep's rate
        rg_ref(50, 5, 20, 25, 2, 1000),     # corrected value clipped at 0
        rg_ref(30, 2, 4, 44, 950, 1000),    # corrected value clipped at 1
    ]


# ---------------------------------------------------------------- McNemar

def mcnemar_cases():
    out = []
    for b, c in [(7, 3), (3, 7), (0, 5), (10, 10), (1, 0), (25, 40), (100, 130), (500, 560), (0, 1), (2, 30)]:
        p = scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue
        sm_p = mcnemar([[50, b], [c, 50]], exact=True).pvalue
        out.append({"b": b, "c": c,
                    "p": val(p, SCIPY, "scipy.stats.binomtest(%d, %d, 0.5).pvalue" % (min(b, c), b + c)),
                    "p_statsmodels": val(sm_p, STATSMODELS, "mcnemar([[50, %d], [%d, 50]], exact=True).pvalue" % (b, c))})
    return out


# ---------------------------------------------------------------- cluster-robust

def cluster_ref(name, y, groups, level):
    y = np.asarray(y, float)
    codes = {g: i for i, g in enumerate(sorted(set(groups)))}
    g = np.array([codes[v] for v in groups])
    res = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    lo, hi = res.conf_int(alpha=1 - level)[0]
    call = ("sm.OLS(y, np.ones(n)).fit(cov_type='cluster', cov_kwds={'groups': g}, use_t=True); "
            "params[0], bse[0], conf_int(alpha=%g)[0], df_resid_inference" % (1 - level))
    return {"name": name, "y": [bool(v) for v in y], "groups": list(groups), "level": level,
            "value": val(res.params[0], STATSMODELS, call), "se": val(res.bse[0], STATSMODELS, call),
            "lower": val(lo, STATSMODELS, call), "upper": val(hi, STATSMODELS, call),
            "df": val(res.df_resid_inference, STATSMODELS, call)}


def cluster_cases():
    rng = np.random.RandomState(20260903)
    out = []
    systems, y = [], []
    for s, (size, rate) in enumerate([(12, 0.9), (30, 0.6), (7, 0.4), (22, 0.75), (15, 0.5)]):
        systems += ["sys-%c" % (ord("a") + s)] * size
        y += list(rng.uniform(size=size) < rate)
    out.append(cluster_ref("five_systems", y, systems, 0.95))
    out.append(cluster_ref("five_systems_level90", y, systems, 0.90))
    out.append(cluster_ref("two_systems", [1, 1, 0, 1, 0, 1, 1, 0, 0, 1], ["x"] * 6 + ["y"] * 4, 0.95))
    systems, y = [], []
    for s in range(12):
        size = rng.randint(3, 40)
        rate = rng.uniform(0.5, 0.95)
        systems += ["s%02d" % s] * size
        y += list(rng.uniform(size=size) < rate)
    out.append(cluster_ref("twelve_systems", y, systems, 0.95))
    return out


# ---------------------------------------------------------------- Fleiss

def fleiss_ref(name, counts, level):
    t = np.asarray(counts, float)
    n, k = t.shape
    K = t[0].sum()
    kappa = fleiss_kappa(t, method="fleiss")
    # Gwet (2008) linearised variance, unweighted, K ratings per item.
    pj = t.sum(0) / (n * K)
    pa_i = (t * (t - 1)).sum(1) / (K * (K - 1))
    pe = np.sum(pj ** 2)
    kap_np = (pa_i.mean() - pe) / (1 - pe)
    assert abs(kap_np - kappa) < 1e-12
    kappa_i = (pa_i - pe) / (1 - pe)
    pe_i = (t @ pj) / K
    kappa_star = kappa_i - 2 * (1 - kap_np) * (pe_i - pe) / (1 - pe)
    se = math.sqrt(np.sum((kappa_star - kap_np) ** 2) / (n * (n - 1)))
    tq = scipy.stats.t.ppf(1 - (1 - level) / 2, n - 1)
    pq = np.sum(pj * (1 - pj))
    se0 = math.sqrt(2 / (n * K * (K - 1))) * math.sqrt(pq ** 2 - np.sum(pj * (1 - pj) * (1 - 2 * pj))) / pq
    z = kappa / se0
    gcall = ("numpy, Gwet (2008) as irrCAC fleiss.kappa.dist: kappa*_i = kappa_i - 2(1-kappa)(pe_i-pe)/(1-pe), "
             "se = sqrt(sum((kappa*_i - kappa)^2)/(n(n-1))), CI = kappa -/+ scipy.stats.t.ppf(1-(1-level)/2, n-1) se")
    ncall = "numpy, Fleiss, Nee and Landis (1979): sqrt(2/(nK(K-1))) sqrt((sum pq)^2 - sum pq(q-p))/sum pq"
    return {"name": name, "counts": t.astype(int).tolist(), "level": level,
            "kappa": val(kappa, STATSMODELS, "fleiss_kappa(counts, method='fleiss')"),
            "se": val(se, NUMPY + ", " + SCIPY, gcall),
            "lower": val(max(-1, kappa - tq * se), NUMPY + ", " + SCIPY, gcall),
            "upper": val(min(1, kappa + tq * se), NUMPY + ", " + SCIPY, gcall),
            "se_null": val(se0, NUMPY, ncall),
            "p_null": val(2 * scipy.stats.norm.sf(abs(z)), NUMPY + ", " + SCIPY, ncall + "; p = 2 norm.sf(|kappa/se0|)")}


def fleiss_cases():
    rng = np.random.RandomState(20260904)
    out = []
    # 30 items, 6 ratings each, 5 categories (a diagnosis-style table).
    diagnoses = [
        [0, 0, 0, 6, 0], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0], [0, 0, 0, 0, 6],
        [0, 3, 3, 0, 0], [0, 4, 2, 0, 0], [0, 0, 6, 0, 0], [0, 0, 0, 3, 3], [2, 0, 4, 0, 0],
        [0, 0, 0, 1, 5], [1, 0, 0, 5, 0], [0, 0, 4, 2, 0], [0, 0, 6, 0, 0], [0, 2, 0, 4, 0],
        [0, 0, 0, 0, 6], [0, 0, 0, 3, 3], [0, 6, 0, 0, 0], [0, 0, 0, 6, 0], [0, 0, 5, 0, 1],
        [0, 2, 3, 1, 0], [2, 0, 4, 0, 0], [0, 0, 2, 4, 0], [2, 0, 4, 0, 0], [0, 1, 4, 1, 0],
        [0, 1, 5, 0, 0], [0, 5, 0, 1, 0], [2, 4, 0, 0, 0], [0, 0, 6, 0, 0], [0, 4, 2, 0, 0]]
    out.append(fleiss_ref("diagnoses_30x6", diagnoses, 0.95))
    # The worked example of the Wikipedia article "Fleiss' kappa": 10 items,
    # 14 raters, 5 categories; the article gives kappa = 0.210.
    wikipedia = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                 [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    out.append(fleiss_ref("wikipedia_14_raters", wikipedia, 0.95))
    # Judge repeats: 40 runs, K = 3 verdicts over fail/partial/pass.
    true = rng.choice(3, size=40, p=[0.2, 0.3, 0.5])
    counts = []
    for c in true:
        row = [0, 0, 0]
        for _ in range(3):
            row[c if rng.uniform() < 0.8 else rng.randint(3)] += 1
        counts.append(row)
    out.append(fleiss_ref("repeats_k3", counts, 0.95))
    out.append(fleiss_ref("repeats_k3_level90", counts, 0.90))
    out.append(fleiss_ref("k2_binary_small", [[2, 0], [1, 1], [0, 2], [2, 0], [0, 2], [1, 1]], 0.95))
    return out


# ---------------------------------------------------------------- planners

def wilson_half(p, n, z):
    lo, hi = proportion_confint(p * n, n, alpha=2 * scipy.stats.norm.sf(z), method="wilson")
    return (hi - lo) / 2


def plan_classical_cases():
    out = []
    for rate, w, level in [(0.3, 0.05, 0.95), (0.5, 0.05, 0.95), (0.1, 0.02, 0.95), (0.9, 0.1, 0.90), (0.0, 0.05, 0.95), (0.5, 0.01, 0.95)]:
        z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
        n = 1
        while wilson_half(rate, n, z) > w:  # brute-force scan
            n += 1
        out.append({"rate": rate, "half_width": w, "level": level,
                    "n": val(n, STATSMODELS, "smallest n (scan from 1) with half-width of proportion_confint(rate*n, n, alpha, method='wilson') <= W"),
                    "achieved": val(wilson_half(rate, n, z), STATSMODELS, "proportion_confint(rate*n, n, alpha, method='wilson') half-width")})
    return out


def plan_ppi_ref(name, y, f, n_light, w, level):
    y, f = np.asarray(y, float), np.asarray(f, float)
    vy, vf, c = np.var(y, ddof=1), np.var(f, ddof=1), np.cov(y, f, ddof=1)[0, 1]
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    n = np.arange(2, n_light + 1, dtype=float)
    nu = n_light - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(c / (vf * (1 + n / nu)), 0, 1)
    lam = np.where(nu >= 2, lam, 0.0)
    var = (vy - 2 * lam * c + lam ** 2 * vf) / n + np.where(lam > 0, lam ** 2 * vf / np.where(nu > 0, nu, 1), 0)
    half = z * np.sqrt(np.maximum(var, 0))
    ok = np.nonzero(half <= w)[0]
    call = ("numpy, vectorised over n = 2..N: lam = clip(C/(Vf (1 + n/(N-n))), 0, 1) (0 when N-n < 2); "
            "half = z sqrt((Vy - 2 lam C + lam^2 Vf)/n + lam^2 Vf/(N-n)); first n with half <= W")
    rec = {"name": name, "y": floats(y), "f": floats(f), "n_light": n_light, "half_width": w, "level": level}
    if len(ok) == 0:
        rec["unreachable"] = True
        rec["achieved"] = val(half.min(), NUMPY, call + "; none: min half")
        return rec
    i = ok[0]
    rec["n"] = val(n[i], NUMPY, call)
    rec["achieved"] = val(half[i], NUMPY, call)
    rec["lambda"] = val(lam[i], NUMPY, call)
    return rec


def plan_pilots():
    """Two 120-run pilots: a strong light predictor (y, f), a weak one (yw, fw)."""
    rng = np.random.RandomState(20260905)
    y = (rng.uniform(size=120) < 0.4).astype(float)
    f = np.round(np.clip(np.where(y == 1, 0.75, 0.25) + rng.normal(0, 0.12, 120), 0, 1), 4)
    yw = (rng.uniform(size=120) < 0.4).astype(float)
    fw = np.round(np.clip(np.where(yw == 1, 0.6, 0.4) + rng.normal(0, 0.2, 120), 0, 1), 4)
    return y, f, yw, fw


def plan_ppi_cases():
    y, f, yw, fw = plan_pilots()
    return [
        plan_ppi_ref("strong_pilot", y, f, 5000, 0.02, 0.95),
        plan_ppi_ref("weak_pilot", yw, fw, 5000, 0.03, 0.95),
        plan_ppi_ref("strong_pilot_unreachable", y, f, 300, 0.01, 0.95),
    ]


def plan_classical_runs_cases():
    """Finite-population corrected classical plan: the smallest n whose
    Wilson interval at z sqrt((N-n)/(N-1)) (the report's interval for the
    N runs) has half-width <= W, by a brute-force scan; checked against
    Cochran's (1977, 4.3) n0/(1 + (n0-1)/N) for the Wald interval, which
    must agree within 1% (or 2 labels) at these rates."""
    out = []
    for rate, w, level, N in [(0.3, 0.05, 0.95, 1000), (0.5, 0.03, 0.95, 800), (0.5, 0.05, 0.95, 5000),
                              (0.1, 0.02, 0.95, 2000), (0.3, 0.025, 0.95, 1000), (0.5, 0.01, 0.90, 300)]:
        z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
        n = 1
        while n < N and wilson_half(rate, n, z * math.sqrt((N - n) / (N - 1))) > w:  # brute-force scan
            n += 1
        half = 0.0 if n == N else wilson_half(rate, n, z * math.sqrt((N - n) / (N - 1)))
        n0 = z * z * rate * (1 - rate) / (w * w)
        cochran = math.ceil(n0 / (1 + (n0 - 1) / N))
        assert abs(cochran - n) <= max(2, 0.01 * n), (rate, w, N, n, cochran)
        call = ("smallest n (scan from 1) with half-width of proportion_confint(rate*n, n, alpha=2 norm.sf(z sqrt((N-n)/(N-1))), "
                "method='wilson') <= W; within 1% (or 2) of Cochran's ceil(n0/(1 + (n0-1)/N)), n0 = z^2 rate(1-rate)/W^2")
        out.append({"rate": rate, "half_width": w, "level": level, "n_runs": N,
                    "n": val(n, STATSMODELS, call), "achieved": val(half, STATSMODELS, call),
                    "cochran": val(cochran, NUMPY, "ceil(n0/(1 + (n0-1)/N)), n0 = z^2 rate(1-rate)/W^2")})
    return out


def plan_ppi_runs_ref(name, y, f, n_light, w, level):
    """Finite-population corrected PPI++ plan, written from the difference
    estimator's design variance (Cochran 1977, 7.2): with lambda as in the
    infinite plan and lambda' = lambda N/(N-n), Var = (1 - n/N)(Vy - 2
    lambda' C + lambda'^2 Vf)/n (not the Go code's 'infinite minus Vy/N'
    form); first n with z sqrt(Var) <= W."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    vy, vf, c = np.var(y, ddof=1), np.var(f, ddof=1), np.cov(y, f, ddof=1)[0, 1]
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    n = np.arange(2, n_light + 1, dtype=float)
    nu = n_light - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(c / (vf * (1 + n / nu)), 0, 1)
        lam = np.where(nu >= 2, lam, 0.0)
        lamp = np.where(lam > 0, lam * n_light / np.where(nu > 0, nu, 1), 0.0)
    var = (1 - n / n_light) * (vy - 2 * lamp * c + lamp ** 2 * vf) / n
    half = z * np.sqrt(np.maximum(var, 0))
    ok = np.nonzero(half <= w)[0]
    call = ("numpy, vectorised over n = 2..N: lam = clip(C/(Vf (1 + n/(N-n))), 0, 1) (0 when N-n < 2), lam' = lam N/(N-n); "
            "half = z sqrt((1 - n/N)(Vy - 2 lam' C + lam'^2 Vf)/n); first n with half <= W")
    rec = {"name": name, "y": floats(y), "f": floats(f), "n_light": n_light, "half_width": w, "level": level}
    i = ok[0]  # at n = N the half-width is 0: always reachable
    rec["n"] = val(n[i], NUMPY, call)
    rec["achieved"] = val(half[i], NUMPY, call)
    rec["lambda"] = val(lam[i], NUMPY, call)
    return rec


def plan_ppi_runs_cases():
    y, f, yw, fw = plan_pilots()
    return [
        plan_ppi_runs_ref("strong_pilot_1000", y, f, 1000, 0.02, 0.95),
        plan_ppi_runs_ref("weak_pilot_1000", yw, fw, 1000, 0.03, 0.95),
        plan_ppi_runs_ref("strong_pilot_300", y, f, 300, 0.01, 0.95),
        plan_ppi_runs_ref("weak_pilot_5000", yw, fw, 5000, 0.03, 0.95),
    ]


def plan_ppi_assured_ref(name, y, f, n_light, w, level, assurance, of_runs):
    """PPI++ plan with assurance P (PlanPPIRateAssured, PlanPPIRateAssuredOfRuns):
    the residuals' part of the planned variance times (m-1)/(m-2) F_P(d_n, d_m),
    d_k = 2 max(1, k-2)/(kappa-1), kappa the kurtosis (population moments) of
    the pilot's residuals y - lam* f, lam* the least-squares slope (clipped to
    [0, 1] for the process's plan, at least 0 for the runs'). Written from the
    README's formula with scipy.stats.kurtosis, np.polyfit and scipy.stats.f.ppf;
    first n with z sqrt(Var) <= W."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    m = len(y)
    vy, vf, c = np.var(y, ddof=1), np.var(f, ddof=1), np.cov(y, f, ddof=1)[0, 1]
    slope = np.polyfit(f, y, 1)[0]
    assert abs(slope - c / vf) < 1e-9
    lam_star = max(0.0, slope) if of_runs else min(1.0, max(0.0, slope))
    kappa = scipy.stats.kurtosis(y - lam_star * f, fisher=False, bias=True)
    z = scipy.stats.norm.ppf(1 - (1 - level) / 2)
    n = np.arange(2, n_light + 1, dtype=float)
    nu = n_light - n
    infl = (m - 1) / (m - 2) * scipy.stats.f.ppf(assurance, 2 * np.maximum(1, n - 2) / (kappa - 1), 2 * (m - 2) / (kappa - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(c / (vf * (1 + n / nu)), 0, 1)
        lam = np.where(nu >= 2, lam, 0.0)
        if of_runs:
            lamp = np.where(lam > 0, lam * n_light / np.where(nu > 0, nu, 1), 0.0)
            var = infl * (1 - n / n_light) * (vy - 2 * lamp * c + lamp ** 2 * vf) / n
        else:
            var = infl * (vy - 2 * lam * c + lam ** 2 * vf) / n + np.where(lam > 0, lam ** 2 * vf / np.where(nu > 0, nu, 1), 0)
    half = z * np.sqrt(np.maximum(var, 0))
    ok = np.nonzero(half <= w)[0]
    call = ("numpy/scipy, vectorised over n = 2..N: infl = (m-1)/(m-2) scipy.stats.f.ppf(P, 2 max(1, n-2)/(k-1), 2(m-2)/(k-1)), "
            "k = scipy.stats.kurtosis(y - lam* f, fisher=False, bias=True), lam* = np.polyfit(f, y, 1)[0] clipped; "
            + ("half = z sqrt(infl (1 - n/N)(Vy - 2 lam' C + lam'^2 Vf)/n), lam' = lam N/(N-n)" if of_runs else
               "half = z sqrt(infl (Vy - 2 lam C + lam^2 Vf)/n + lam^2 Vf/(N-n))") + "; first n with half <= W")
    rec = {"name": name, "y": floats(y), "f": floats(f), "n_light": n_light, "half_width": w, "level": level,
           "assurance": assurance, "of_runs": of_runs}
    i = ok[0]
    rec["n"] = val(n[i], SCIPY, call)
    rec["achieved"] = val(half[i], SCIPY, call)
    rec["lambda"] = val(lam[i], NUMPY, call)
    return rec


def plan_ppi_assured_cases():
    y, f, yw, fw = plan_pilots()
    return [
        plan_ppi_assured_ref("strong_runs_1000_p90", y, f, 1000, 0.02, 0.95, 0.9, True),
        plan_ppi_assured_ref("weak_runs_1000_p80", yw, fw, 1000, 0.03, 0.95, 0.8, True),
        plan_ppi_assured_ref("strong_5000_p90", y, f, 5000, 0.02, 0.95, 0.9, False),
        plan_ppi_assured_ref("weak_5000_p90", yw, fw, 5000, 0.03, 0.95, 0.9, False),
    ]


def plan_agreement_cases():
    out = []
    M = 60000
    for rate, target, z in [(0.85, 0.7, 1.959963984540054), (0.9, 0.8, 1.959963984540054), (0.7, 0.6, 1.959963984540054),
                            (1.0, 0.9, 1.959963984540054), (0.95, 0.9, 1.6448536269514722), (0.75, 0.7, 1.959963984540054)]:
        m = np.arange(1, M + 1)
        x = np.floor(rate * m + 1e-9)
        lo, _ = proportion_confint(x, m, alpha=2 * scipy.stats.norm.sf(z), method="wilson")
        clears = lo > target
        # smallest n such that every m in [n, M] clears (M far beyond the answer)
        fails = np.nonzero(~clears)[0]
        n = int(fails[-1]) + 2 if len(fails) else 1
        assert n < M / 4, (rate, target, n)
        out.append({"rate": rate, "target": target, "z": z,
                    "n": val(n, STATSMODELS, "smallest n with proportion_confint(floor(rate m + 1e-9), m, alpha=2 norm.sf(z), method='wilson')[0] > target for every m in [n, %d]" % M),
                    "achieved": val(lo[n - 1], STATSMODELS, "proportion_confint(floor(rate n + 1e-9), n, method='wilson')[0]")})
    return out


def main():
    data = {
        "about": "Reference values for statistician's estimate, planner and repeatability functions; regenerate with "
                 "/usr/bin/python3 estimate_ref.py. Each value carries its tool, version and exact call.",
        "ppi": ppi_cases(),
        "ppi_runs": ppi_runs_cases(),
        "classical_runs": classical_runs_cases(),
        "strat_ppi": strat_cases(),
        "ipw": ipw_cases(),
        "rogan_gladen": rg_cases(),
        "mcnemar": mcnemar_cases(),
        "cluster": cluster_cases(),
        "fleiss": fleiss_cases(),
        "plan_classical": plan_classical_cases(),
        "plan_ppi": plan_ppi_cases(),
        "plan_classical_runs": plan_classical_runs_cases(),
        "plan_ppi_runs": plan_ppi_runs_cases(),
        "plan_ppi_assured": plan_ppi_assured_cases(),
        "plan_agreement": plan_agreement_cases(),
    }
    with open(os.path.join(HERE, "estimate_values.json"), "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
