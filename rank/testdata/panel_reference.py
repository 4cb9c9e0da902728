#!/usr/bin/python3
"""Reference values of the panel section (rank/panel_test.go).

Run from the repository root:  /usr/bin/python3 rank/testdata/panel_reference.py > rank/testdata/panel_reference.json

Independent of evalcal's Go code (Debian 12: numpy 1.24.2, statsmodels 0.13.5). Seeded numpy draws: deep
verdicts (0 fail, 1 partial, 2 pass) and m members' verdicts, some abstaining (-1). Per data set:
  - Fleiss' kappa over the runs every member answered:
    statsmodels.stats.inter_rater.fleiss_kappa(aggregate_raters(rows, n_cat=3)[0], method="fleiss")
  - Krippendorff's alpha, nominal, over every run with at least two answers: the coincidence-matrix
    route of Krippendorff (2011), section "nominal data", written here with numpy (no Debian package);
  - each member's matches with deep over the runs it answered;
  - effective votes m / (1 + (m-1) max(0, rbar)), rbar the mean over member pairs of numpy.corrcoef of
    their pass indicators over the runs both answered.
"""
import json
import sys

import numpy as np
import statsmodels
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa


def alpha_nominal(votes):
    o = np.zeros((3, 3))
    for row in votes:
        vals = [v for v in row if v >= 0]
        m = len(vals)
        if m < 2:
            continue
        for i, a in enumerate(vals):
            for j, b in enumerate(vals):
                if i != j:
                    o[a, b] += 1.0 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = (o.sum() - np.trace(o)) / n
    d_e = (n * n - (n_c ** 2).sum()) / (n * (n - 1))
    return 1 - d_o / d_e


def dataset(seed, runs, m, accuracy, abstain):
    rng = np.random.default_rng(seed)
    deep = rng.choice(3, size=runs, p=[0.4, 0.2, 0.4])
    votes = np.empty((runs, m), dtype=int)
    for j in range(m):
        for u in range(runs):
            if rng.random() < abstain:
                votes[u, j] = -1
            elif rng.random() < accuracy[j]:
                votes[u, j] = deep[u]
            else:
                votes[u, j] = rng.integers(0, 3)
    full = votes[(votes >= 0).all(axis=1)]
    fk = fleiss_kappa(aggregate_raters(full, n_cat=3)[0], method="fleiss")
    members = []
    for j in range(m):
        ok = votes[:, j] >= 0
        members.append({"matches": int((votes[ok, j] == deep[ok]).sum()), "n": int(ok.sum()), "abstained": int((~ok).sum())})
    rs = []
    for a in range(m):
        for b in range(a + 1, m):
            ok = (votes[:, a] >= 0) & (votes[:, b] >= 0)
            rs.append(np.corrcoef(votes[ok, a] == 2, votes[ok, b] == 2)[0, 1])
    rbar = max(0.0, float(np.mean(rs)))
    return {"seed": seed, "deep": deep.tolist(), "votes": votes.tolist(), "fleiss": float(fk),
            "fleiss_items": int(len(full)), "alpha": float(alpha_nominal(votes)), "members": members,
            "effective_votes": m / (1 + (m - 1) * rbar)}


print(json.dumps({
    "provenance": "rank/testdata/panel_reference.py with /usr/bin/python3 %s, numpy %s, statsmodels %s"
    % (sys.version.split()[0], np.__version__, statsmodels.__version__),
    "sets": [dataset(1, 60, 3, [0.9, 0.7, 0.5], 0.1), dataset(2, 200, 5, [0.8, 0.8, 0.6, 0.9, 0.4], 0.05),
             dataset(3, 30, 2, [0.95, 0.3], 0.2)],
}))
