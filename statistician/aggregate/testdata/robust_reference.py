#!/usr/bin/python3
"""Reference figures for the agreement_robust section (robust_test.go),
computed from runs.json (light and deep as the two raters, verdicts coded
fail 0, partial 1, pass 2), never with evalcal:
/usr/bin/python3 robust_reference.py > robust_reference.json

Krippendorff's alpha by the coincidence-matrix form of Krippendorff (2011,
"Computing Krippendorff's Alpha-Reliability"), Gwet's AC1 by Gwet (2008)
eq. for pa and pe, both in numpy; sensitivity, specificity and balanced
accuracy with sklearn's recall_score and balanced_accuracy_score; Wilson
intervals with statsmodels' proportion_confint(method="wilson"). Run it
again when runs.json changes and commit both files."""
import json
import platform
import sys

import numpy as np
import sklearn
import statsmodels
from sklearn.metrics import balanced_accuracy_score, recall_score
from statsmodels.stats.proportion import proportion_confint

CODE = {"fail": 0, "partial": 1, "pass": 2}
runs = json.load(open("runs.json"))["runs"]
rows = [(CODE[r["light"][0]], CODE[r["deep"][0]]) for r in runs]


def kripp(rows, delta):
    o = np.zeros((3, 3))
    for r in rows:
        m = len(r)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[r[i], r[j]] += 1 / (m - 1)
    nc = o.sum(1)
    n = nc.sum()
    d = np.array([[delta(c, k, nc) for k in range(3)] for c in range(3)])
    return 1 - ((o * d).sum() / n) / ((np.outer(nc, nc) * d).sum() / (n * (n - 1)))


def nominal(c, k, nc):
    return float(c != k)


def ordinal(c, k, nc):
    a, b = min(c, k), max(c, k)
    return (nc[a:b + 1].sum() - (nc[c] + nc[k]) / 2) ** 2


counts = np.zeros((len(rows), 3))
for i, r in enumerate(rows):
    for v in r:
        counts[i, v] += 1
ri = counts.sum(1)
pa = ((counts * (counts - 1)).sum(1) / (ri * (ri - 1))).mean()
pi = (counts / ri[:, None]).mean(0)
pe = (pi * (1 - pi)).sum() / (3 - 1)

deep = [int(r[1] == 2) for r in rows]
light = [int(r[0] == 2) for r in rows]
tp = sum(a and b for a, b in zip(deep, light))
tn = sum((not a) and (not b) for a, b in zip(deep, light))
out = {
    "provenance": {
        "python": platform.python_version(), "numpy": np.__version__,
        "sklearn": sklearn.__version__, "statsmodels": statsmodels.__version__,
        "calls": "kripp (numpy, coincidence matrix); Gwet pa/pe (numpy); "
                 "recall_score(deep, light), recall_score(deep, light, pos_label=0), "
                 "balanced_accuracy_score(deep, light); proportion_confint(k, n, alpha=0.05, method='wilson')",
    },
    "alpha_nominal": kripp(rows, nominal),
    "alpha_ordinal": kripp(rows, ordinal),
    "ac1": (pa - pe) / (1 - pe),
    "sensitivity": recall_score(deep, light),
    "sensitivity_wilson95": list(proportion_confint(tp, sum(deep), alpha=0.05, method="wilson")),
    "specificity": recall_score(deep, light, pos_label=0),
    "specificity_wilson95": list(proportion_confint(tn, len(deep) - sum(deep), alpha=0.05, method="wilson")),
    "balanced_accuracy": balanced_accuracy_score(deep, light),
    "base_rate": sum(deep) / len(deep),
    "base_rate_wilson95": list(proportion_confint(sum(deep), len(deep), alpha=0.05, method="wilson")),
}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
