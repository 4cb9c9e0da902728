#!/usr/bin/env python3
"""Reference values for the report trend (evalcal run --baseline) of two
nights of saved inspections: night 1 is testdata/inspections/twelve.jsonl
(the baseline), night 2 is testdata/inspections/agree.jsonl. Computed
independently of evalcal with Debian's numpy, scikit-learn and statsmodels.

Light's forecast of a deep pass is p = (light runtime_fidelity + light
task_effectiveness) / 200, y = 1 when deep's verdict is pass (README,
"Light as a forecast"). The Brier difference (now - before) has Welch's
interval on the per-run squared errors; the calibration score is
100 (1 - BS / 0.25) and its change's interval is -400 times the Brier
difference's.

Run from the repository root with /usr/bin/python3; writes trend_values.json.
"""
import json
import numpy as np
import sklearn, statsmodels
from sklearn.metrics import brier_score_loss
from statsmodels.stats.weightstats import DescrStatsW, CompareMeans


def night(src):
    light, deep = {}, {}
    for line in open(src):
        if line.strip():
            d = json.loads(line)
            (light if d["depth"] == "light" else deep)[d["run_id"]] = d
    ids = sorted(set(light) & set(deep))
    p = np.array([(light[i]["runtime_fidelity"] + light[i]["task_effectiveness"]) / 200 for i in ids])
    y = np.array([1 if deep[i]["verdict"] == "pass" else 0 for i in ids])
    return p, y


before_src, now_src = "testdata/inspections/twelve.jsonl", "testdata/inspections/agree.jsonl"
p0, y0 = night(before_src)
p1, y1 = night(now_src)
b0, b1 = brier_score_loss(y0, p0), brier_score_loss(y1, p1)
e0, e1 = (p0 - y0) ** 2, (p1 - y1) ** 2
cm = CompareMeans(DescrStatsW(e1), DescrStatsW(e0))
lo, hi = cm.tconfint_diff(alpha=0.05, usevar="unequal")
cal0, cal1 = 100 * (1 - b0 / 0.25), 100 * (1 - b1 / 0.25)
out = {
    "before": before_src,
    "now": now_src,
    "brier": {"before": b0, "now": b1, "difference": b1 - b0, "lower": lo, "upper": hi},
    "calibration": {"before": cal0, "now": cal1, "difference": cal1 - cal0, "lower": -400 * hi, "upper": -400 * lo},
    "provenance": {
        "brier": "sklearn %s sklearn.metrics.brier_score_loss(y, p)" % sklearn.__version__,
        "interval": "statsmodels %s CompareMeans(DescrStatsW(e_now), DescrStatsW(e_before)).tconfint_diff(alpha=0.05, usevar='unequal'), e = (p - y)^2" % statsmodels.__version__,
        "calibration": "100 (1 - BS / 0.25); interval -400 x the Brier interval, numpy %s" % np.__version__,
    },
}
with open("testdata/reference/trend/trend_values.json", "w") as f:
    json.dump(out, f, indent=2, sort_keys=True)
    f.write("\n")
