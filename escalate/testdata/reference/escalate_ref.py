#!/usr/bin/python3
"""escalate_ref.py writes escalate_values.json: an independent implementation
of the fixed-sequence threshold of escalate.Calibrate (Jung, Brahman and
Choi, "Trust or Escalate", ICLR 2025; Bauer 1991; Angelopoulos et al.,
"Learn then Test", 2021), written from the method's description with scipy,
and its answers on seeded datasets.

Run with Debian's python3-scipy from this directory:

    /usr/bin/python3 escalate_ref.py

Each step's test is the exact binomial test: H_j (agreement among runs with
confidence >= lambda_j is below A) is rejected when
scipy.stats.binomtest(matches, covered, A, alternative='greater').pvalue <= D.
Thresholds are the distinct confidences, highest first; those covering fewer
runs than the fewest n with binomtest(n, n, A, alternative='greater').pvalue
<= D are skipped (no record can reject there); the sequence stops at the first
step not rejected and the threshold is the last rejected. The recorded
bounds are binomtest(...).proportion_ci(method='exact'): one-sided
(alternative='greater') at 1 - D for each tested step, two-sided 95% for
coverage and agreement at the chosen threshold.
"""
import json
import math
import os

import numpy as np
import scipy
import scipy.stats

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = "scipy %s, numpy %s" % (scipy.__version__, np.__version__)


def datasets():
    rng = np.random.RandomState(20261202)
    d = {}
    # score distances 0..40 (ties), agreement rising with the distance
    c = rng.randint(0, 41, 300).astype(float)
    d["distance_informative"] = (c, rng.uniform(size=300) < 1 - 0.6 * (1 - c / 40) ** 2)
    # unanimity of three repeats: 1/3, 2/3, 1
    c = rng.choice([1 / 3, 2 / 3, 1.0], size=120, p=[0.1, 0.3, 0.6])
    d["unanimity_k3"] = (c, rng.uniform(size=120) < np.where(c == 1.0, 0.97, np.where(c > 0.5, 0.8, 0.5)))
    # a confidence that tells nothing
    c = rng.randint(0, 41, 200).astype(float)
    d["uninformative"] = (c, rng.uniform(size=200) < 0.75)
    # too few runs for any target
    c = rng.randint(0, 41, 15).astype(float)
    d["small"] = (c, rng.uniform(size=15) < 0.95)
    # continuous probabilities (every confidence distinct)
    c = np.round(rng.beta(5, 1.5, 500), 6)
    d["probability_continuous"] = (c, rng.uniform(size=500) < c)
    return {k: ([float(v) for v in conf], [bool(v) for v in agree]) for k, (conf, agree) in d.items()}


def min_covered(a, delta):
    n = 1
    while scipy.stats.binomtest(n, n, a, alternative="greater").pvalue > delta:
        n += 1
    return n


def exact_ci(x, n, level, alternative):
    ci = scipy.stats.binomtest(x, n, alternative=alternative).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def fixed_sequence(conf, agree, a, delta):
    conf = np.asarray(conf)
    agree = np.asarray(agree)
    n_min = min_covered(a, delta)
    steps, chosen = [], None
    for lam in sorted(set(conf.tolist()), reverse=True):
        cov = conf >= lam
        covered, matches = int(cov.sum()), int(agree[cov].sum())
        if covered < n_min:
            continue
        p = scipy.stats.binomtest(matches, covered, a, alternative="greater").pvalue
        lower, _ = exact_ci(matches, covered, 1 - delta, "greater")
        rejected = bool(p <= delta)
        steps.append({"threshold": lam, "covered": covered, "matches": matches, "pvalue": float(p), "lower": lower, "rejected": rejected})
        if not rejected:
            break
        chosen = (lam, covered, matches, lower)
    out = {"agreement": a, "risk": delta, "min_covered": n_min, "steps": steps, "met": chosen is not None}
    if chosen is not None:
        lam, covered, matches, lower = chosen
        out.update({
            "threshold": lam, "covered": covered, "matches": matches, "agreement_lower": lower,
            "coverage95": exact_ci(covered, len(conf), 0.95, "two-sided"),
            "agreement95": exact_ci(matches, covered, 0.95, "two-sided"),
        })
    return out


def main():
    data = datasets()
    cases = []
    for name in sorted(data):
        conf, agree = data[name]
        for a in (0.8, 0.9, 0.95):
            for delta in (0.1, 0.05):
                r = fixed_sequence(conf, agree, a, delta)
                r["dataset"] = name
                cases.append(r)
    doc = {
        "tool": TOOL,
        "call": "binomtest(matches, covered, A, alternative='greater').pvalue <= D per step; binomtest(...).proportion_ci(method='exact') for the bounds",
        "datasets": {k: {"confidence": v[0], "agree": v[1]} for k, v in data.items()},
        "cases": cases,
    }
    with open(os.path.join(HERE, "escalate_values.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
