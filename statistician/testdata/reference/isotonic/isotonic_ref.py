#!/usr/bin/python3
"""isotonic_ref.py writes isotonic_values.json: reference values for
statistician/isotonic.go (FitIsotonic, IsotonicMap.At) from scikit-learn's
IsotonicRegression (Debian's python3-sklearn), with provenance.

Run from this directory: /usr/bin/python3 isotonic_ref.py

Each case fits IsotonicRegression(increasing=True, out_of_bounds="clip")
on (x, y) and records .predict(query) at the fitted inputs, between them
and outside them. A second route checks the fit: the fitted values at the
inputs minimise the squared error among non-decreasing sequences
(scipy.optimize.minimize with the monotone constraints).
"""
import json
import os

import numpy as np
import scipy
import scipy.optimize
import sklearn
from sklearn.isotonic import IsotonicRegression

HERE = os.path.dirname(os.path.abspath(__file__))


def case(name, x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    ir = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y)
    ux = np.unique(x)
    query = np.concatenate([ux, (ux[:-1] + ux[1:]) / 2, [ux[0] - 1, ux[-1] + 1], np.linspace(ux[0], ux[-1], 7)])
    pred = ir.predict(query)
    # Second route: least squares under monotone constraints on the
    # distinct inputs (ties averaged with their counts as weights).
    w = np.array([np.sum(x == u) for u in ux])
    m = np.array([y[x == u].mean() for u in ux])
    cons = [{"type": "ineq", "fun": (lambda v, i=i: v[i + 1] - v[i])} for i in range(len(ux) - 1)]
    res = scipy.optimize.minimize(lambda v: np.sum(w * (v - m) ** 2), m, constraints=cons, method="SLSQP",
                                  options={"ftol": 1e-14, "maxiter": 1000})
    assert np.max(np.abs(res.x - ir.predict(ux))) < 1e-5, (res.x, ir.predict(ux))
    return {"name": name, "x": [float(v) for v in x], "y": [float(v) for v in y], "query": [float(v) for v in query],
            "predict": [float(v) for v in pred],
            "tool": "scikit-learn " + sklearn.__version__ + " (checked by scipy " + scipy.__version__ + " SLSQP)",
            "call": "IsotonicRegression(increasing=True, out_of_bounds='clip').fit(x, y).predict(query)"}


def main():
    rng = np.random.RandomState(20260905)
    cases = [case("hand", [1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 3.5, 5]),
             case("ties", [0, 0, 0.5, 0.5, 0.5, 1, 1, 0.25], [1, 0, 0, 1, 1, 1, 0, 0]),
             case("decreasing", [1, 2, 3, 4], [4, 3, 2, 1])]
    x = np.round(rng.uniform(0, 1, 80), 2)
    y = (rng.uniform(size=80) < 1 / (1 + np.exp(-8 * (x - 0.5)))).astype(float)
    cases.append(case("binary_logistic", x, y))
    x = np.round(rng.uniform(0, 100, 60), 0)
    y = np.round(0.01 * x ** 1.5 + rng.normal(0, 8, 60), 1)
    cases.append(case("scores", x, y))
    with open(os.path.join(HERE, "isotonic_values.json"), "w") as fh:
        json.dump({"about": "Reference values for statistician/isotonic.go; regenerate with /usr/bin/python3 isotonic_ref.py",
                   "cases": cases}, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
