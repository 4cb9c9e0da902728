#!/usr/bin/python3
"""Reference values for statistician.IdealMeanBootstrapInterval, independent
of evalcal:

- "exact": the quantiles of the ideal bootstrap distribution of the mean
  itself. For items on a lattice (value = step * j, j an integer) the sum of
  n draws with replacement has the n-fold convolution of the empirical pmf
  as its distribution; it is computed by repeated squaring with
  scipy.signal.fftconvolve, and the quantile at q is the smallest lattice
  point whose CDF reaches q (the inverse CDF, as a percentile bootstrap with
  infinitely many resamples gives).
- "cornish_fisher": the second-order Cornish-Fisher quantiles from the
  sample's moments by scipy.stats (moment, skew, kurtosis), written from
  Hall (1992), "The Bootstrap and Edgeworth Expansion", sec. 2.5:
  w = z + (z^2-1) g1/6 + (z^3-3z) g2/24 - (2z^3-5z) g1^2/36, with
  g1 = skew/sqrt(n), g2 = excess kurtosis/n of the resampled mean.

Run: /usr/bin/python3 statistician/testdata/reference/idealboot/idealboot_ref.py > statistician/testdata/reference/idealboot/idealboot_ref.json
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.signal import fftconvolve


def npower(pmf, n):
    out = np.array([1.0])
    base = pmf.copy()
    while n:
        if n & 1:
            out = np.clip(fftconvolve(out, base), 0, None)
            out /= out.sum()
        n >>= 1
        if n:
            base = np.clip(fftconvolve(base, base), 0, None)
            base /= base.sum()
    return out


def case(name, step, js, counts):
    js, counts = np.asarray(js), np.asarray(counts)
    n = int(counts.sum())
    pmf = np.zeros(js.max() + 1)
    pmf[js] = counts / n
    dist = npower(pmf, n)
    cdf = np.cumsum(dist)
    exact = [float(step * np.searchsorted(cdf, q) / n) for q in (0.025, 0.975)]
    x = np.repeat(step * js.astype(float), counts)
    m = x.mean()
    mu2 = stats.moment(x, 2)
    g1 = stats.skew(x) / np.sqrt(n)
    g2 = stats.kurtosis(x) / n  # excess, Fisher
    cf = []
    for q in (0.025, 0.975):
        z = stats.norm.ppf(q)
        w = z + (z * z - 1) * g1 / 6 + (z ** 3 - 3 * z) * g2 / 24 - (2 * z ** 3 - 5 * z) * g1 * g1 / 36
        cf.append(float(m + np.sqrt(mu2 / n) * w))
    return {"name": name, "values": (step * js.astype(float)).tolist(), "counts": counts.tolist(), "n": n,
            "mean": float(m), "sd_of_mean": float(np.sqrt(mu2 / n)), "skewness_of_mean": float(g1),
            "exact": exact, "cornish_fisher": cf}


def main():
    cases = [
        case("two-point, rate 0.3, n=10000", 1.0, [0, 1], [7000, 3000]),
        case("two-point, rate 0.01, n=10000", 1.0, [0, 1], [9900, 100]),
        case("two-point, rate 0.002, n=50000", 1.0, [0, 1], [49900, 100]),
        case("two-point, rate 0.0005, n=20000", 1.0, [0, 1], [19990, 10]),
        case("squared errors of 0.1 steps, n=20000", 0.01, [0, 1, 4, 9, 16, 25, 36, 49, 64, 81],
             [6000, 4000, 3000, 2000, 1500, 1200, 900, 700, 400, 300]),
        case("skewed five-point, n=12000", 0.25, [0, 1, 2, 3, 4], [9000, 1500, 900, 450, 150]),
        # From n = 1,000, where forecast.MinIdealBootstrapForecasts starts the analytic interval.
        case("two-point, rate 0.3, n=1000", 1.0, [0, 1], [700, 300]),
        case("two-point, rate 0.1, n=1000", 1.0, [0, 1], [900, 100]),
        case("squared errors of 0.1 steps, n=1000", 0.01, [0, 1, 4, 9, 16, 25, 36, 49, 64, 81],
             [300, 200, 150, 100, 75, 60, 45, 35, 20, 15]),
        case("skewed five-point, n=1500", 0.25, [0, 1, 2, 3, 4], [1125, 187, 113, 56, 19]),
        case("squared errors of 0.05 steps, n=2100", 0.0025, [j * j for j in range(21)],
             [300, 260, 220, 190, 160, 140, 120, 100, 90, 80, 70, 60, 50, 45, 40, 35, 30, 25, 20, 15, 50]),
    ]
    json.dump({"generator": "statistician/testdata/reference/idealboot/idealboot_ref.py",
               "tools": ["numpy " + np.__version__, "scipy " + scipy.__version__, "python " + sys.version.split()[0]],
               "cases": cases}, sys.stdout, indent=1)
    print()


main()
