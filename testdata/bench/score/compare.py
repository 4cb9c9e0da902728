#!/usr/bin/python3
"""Checks that evalcal score (JSON) and score_ref.py agree per group.

usage: compare.py EVALCAL.json REF.json
Prints the largest absolute difference of each statistic over the groups
and exits 1 when one is beyond its tolerance: evalcal's document rounds a
statistic to 6 significant digits (relative 5e-6) and the 0-100
calibration to 2 decimals (0.005); the bootstrap lower bound of the BSS,
drawn from other random streams, within 0.4 standard errors (the Monte
Carlo error of 1,000 resamples at the 2.5% quantile is about 0.085), or
more with many groups: z(0.0005 / groups) times the spread of the
difference, 0.085 against evalcal's analytic interval and 0.12 (both
resampled) against its index or multinomial bootstrap, so that a correct
build fails one time in a thousand whatever the number of groups; the
labels must be equal in every group, except where the two lower bounds lie
on either side of 0 (within that tolerance of each other): the label turns
on the bound's sign, so there two random streams may disagree, and with
hundreds of groups some do.
"""
import json
import sys
from statistics import NormalDist

go = {g["key"]: g for g in json.load(open(sys.argv[1]))["groups"]}
py = {g["key"]: g for g in json.load(open(sys.argv[2]))["groups"]}
assert sorted(go) == sorted(py), "different groups"
worst = {}
labels = 0
methods = {}


bad = []
straddle = []


def upd(group, name, a, b, tol=None):
    d = abs(a - b)
    worst[name] = max(worst.get(name, 0), d)
    if tol is None:
        tol = 5e-6 * abs(b) + 1e-12
    if d > tol:
        bad.append("%s: %s: evalcal %r, python %r (tolerance %.3g)" % (group, name, a, b, tol))


z = NormalDist().inv_cdf(1 - 0.0005 / len(py))


for k, p in py.items():
    g = go[k]
    upd(k, "brier", g["brier"], p["brier"])
    upd(k, "calibration", g["calibration"], p["calibration"], 0.005 + 1e-9)
    upd(k, "bss", g["bss"], p["bss"])
    for t in ("reliability", "resolution", "uncertainty"):
        upd(k, "murphy." + t, g["murphy"]["exact"][t], p["murphy"][t])
    for t in ("mcb", "dsc", "unc"):
        upd(k, "corp." + t, g["corp"][t], p["corp"][t])
    assert len(g["murphy"]["binned"]["table"]) == len(p["binned"]), "different bins for " + k
    for gb, pb in zip(g["murphy"]["binned"]["table"], p["binned"]):
        assert gb["count"] == pb["count"], "different bin counts for " + k
        upd(k, "bin.observed_rate", gb["observed_rate"], pb["observed_rate"])
        upd(k, "bin.wilson", gb["rate_ci95"]["lower"], pb["rate_ci95"][0])
    if "rps" in p:
        upd(k, "rps.mean", g["rps"]["mean"], p["rps"]["mean"])
        upd(k, "rpss", g["rps"]["rpss"], p["rps"]["rpss"])
    # Different random streams (or evalcal's analytic ideal bootstrap): the
    # bounds agree only statistically, within the Monte Carlo error of
    # 1,000 resamples (about 0.085 standard errors at the 2.5% quantile).
    se = (p["bss_ci95"][1] - p["bss_ci95"][0]) / 3.92
    spread = 0.085 if g.get("bss_ci95_method") == "cornish-fisher" else 0.12
    tol = max(0.4, z * spread)
    upd(k, "bss_ci95.lower in standard errors (bootstrap)", g["bss_ci95"]["lower"] / se, p["bss_ci95"][0] / se, tol)
    methods[g.get("bss_ci95_method", "?")] = methods.get(g.get("bss_ci95_method", "?"), 0) + 1
    if g["label"] == p["label"]:
        labels += 1
    elif (g["bss_ci95"]["lower"] > 0) != (p["bss_ci95"][0] > 0) and abs(g["bss_ci95"]["lower"] - p["bss_ci95"][0]) <= tol * se:
        straddle.append(k)
for k in sorted(worst):
    print("%-45s max |evalcal - python| = %.3g" % (k, worst[k]))
print("labels equal in %d of %d groups; evalcal's interval methods: %s" % (labels, len(py), methods))
if straddle:
    print("labels differ where the two lower bounds straddle 0 in %d groups: %s" % (len(straddle), " ".join(straddle[:10])))
if labels + len(straddle) != len(py):
    bad.append("labels differ in %d of %d groups" % (len(py) - labels - len(straddle), len(py)))
for b in bad[:20]:
    print("MISMATCH " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
