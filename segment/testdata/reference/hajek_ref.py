#!/usr/bin/python3
"""Reference values for segment.Hajek (hajek_test.go), computed without evalcal:
the Hájek mean sum(y/pi)/sum(1/pi) and its with-replacement linearisation SE
n/(n-1) sum w^2 (y - mu)^2 / (sum w)^2, w = 1/pi, written out in numpy, and
the same from statsmodels: WLS(y, ones, weights=w).fit(cov_type='HC1')
(params[0], bse[0]); the script checks the two agree to 1e-12.

Run from this directory: /usr/bin/python3 hajek_ref.py > hajek_values.json
Datasets: numpy default_rng(29) draws; the last one is TestDeepRateNeedsAUniformRandomSubset's
k=x slice (labelled runs i%4 < 2 of i < 40; pass unless i%3 == 1; pi 0.5 even i, 0.25 odd)."""
import json
import platform

import numpy as np
import statsmodels
import statsmodels.api as sm

rng = np.random.default_rng(29)
sets = []
for n in (2, 3, 5, 10, 25, 60, 200):
    pi = rng.uniform(0.05, 1.0, n)
    y = (rng.uniform(size=n) < 0.3 + 0.5 * pi).astype(float)
    if n == 2:
        y = np.array([0.0, 1.0])
    sets.append((f"random n={n}", y, pi))
idx = [i for i in range(40) if i % 4 < 2]
sets.append(("k=x slice", np.array([0.0 if i % 3 == 1 else 1.0 for i in idx]),
             np.array([0.5 if i % 2 == 0 else 0.25 for i in idx])))

out = {"provenance": {"script": "segment/testdata/reference/hajek_ref.py",
                      "python": platform.python_version(), "numpy": np.__version__,
                      "statsmodels": statsmodels.__version__,
                      "call": "sm.WLS(y, np.ones(n), weights=1/pi).fit(cov_type='HC1')"},
       "datasets": []}
for name, y, pi in sets:
    n = len(y)
    w = 1 / pi
    mu = np.sum(w * y) / np.sum(w)
    se = np.sqrt(n / (n - 1) * np.sum(w**2 * (y - mu) ** 2) / np.sum(w) ** 2)
    fit = sm.WLS(y, np.ones(n), weights=w).fit(cov_type="HC1")
    assert abs(fit.params[0] - mu) < 1e-12 and abs(fit.bse[0] - se) < 1e-12, (name, mu, se, fit.params, fit.bse)
    out["datasets"].append({"name": name, "y": y.tolist(), "pi": pi.tolist(), "mu": mu, "se": se})
json.dump(out, __import__("sys").stdout, indent=1)
print()
