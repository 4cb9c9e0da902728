#!/usr/bin/python3
"""Reference counts and statistics for pairwise/comp_res_test.go.

Reads the comp_res directory of DAMO-NLP-SG/LLM_summeval (Shen et al. 2023,
"Large Language Models are Not Yet Human-Level Evaluators for Abstractive
Summarization") independently of the Go code and writes, per judge
(gpt-3.5-turbo-0301/DIM), the direct counts and reference statistics:

  consistency      pairs with the same system chosen in X.result and X_toggle.result
                   (a tie both ways included), out of the pairs in both files
  first_slot       responses naming the first slot ("A"), out of those naming A or B
  acc_consistent   consistent pairs whose choice equals the human comparison
                   (human_score_1 vs human_score_2: higher wins, equal = tie)
  acc_abstained    the same correct count, out of all pairs (inconsistent = wrong)

Responses are read as the upstream calc_h2h_pairs.py/utils.extract_choice does:
a one-letter response as it is, else the first "summary [abc]" or "^[abc][\\s.:]".
In the toggle file A is the second system.

Statistics: Wilson intervals by statsmodels.stats.proportion.proportion_confint(
count, n, alpha=0.05, method="wilson"); first-slot p by
scipy.stats.binomtest(k, n, 0.5).pvalue; kappas by
sklearn.metrics.cohen_kappa_score(judge, deep, labels=[0, 1, 2], weights=None|"linear")
on the consistent pairs with categories a=0 < tie=1 < b=2.

Run: /usr/bin/python3 comp_res_reference.py ../../../shared/real-judge-data/summeval/comp_res/gpt-3.5-turbo-0301 > comp_res_reference.json
(Debian python3 3.11, scipy 1.10.1, statsmodels 0.13.5, sklearn 1.2.1).
"""
import glob
import json
import os
import re
import sys

import scipy
import sklearn
import statsmodels
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint


def choice(resp, toggle):
    """1: first system (SYSA) chosen, 2: second system, 0: tie."""
    r = resp
    if len(r.strip()) != 1:
        m = re.search(r"summary ([abc])", r.lower()) or re.search(r"^([abc])[\s.:]", r.lower())
        r = m.group(1) if m else "?"
    r = r.strip().upper()
    if r == "A":
        return 2 if toggle else 1
    if r == "B":
        return 1 if toggle else 2
    if r == "C":
        return 0
    raise ValueError(resp)


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return [float(lo), float(hi)]


def main(d):
    base = os.path.basename(os.path.normpath(d))
    judges = {}
    for plain in sorted(glob.glob(os.path.join(d, "*.result"))):
        if plain.endswith("_toggle.result"):
            continue
        dim = os.path.basename(plain)[:-len(".result")].split("_")[-1]
        rows = [json.loads(l) for l in open(plain)]
        trows = {json.loads(l)["id"]: json.loads(l) for l in open(plain[:-len(".result")] + "_toggle.result")}
        j = judges.setdefault(base + "/" + dim, dict(pairs=0, consistent=0, first=0, decided=0,
                                                     correct=0, judge=[], deep=[]))
        for r in rows:
            t = trows[r["id"]]
            c1, c2 = choice(r["resp"], False), choice(t["resp"], True)
            # first slot: plain A or toggle A, out of responses naming A or B
            for c, tog in ((c1, False), (c2, True)):
                if c != 0:
                    j["decided"] += 1
                    j["first"] += int(c == (2 if tog else 1))
            h = 0 if r["human_score_1"] == r["human_score_2"] else (1 if r["human_score_1"] > r["human_score_2"] else 2)
            j["pairs"] += 1
            if c1 == c2:
                j["consistent"] += 1
                j["correct"] += int(c1 == h)
                cat = {1: 0, 0: 1, 2: 2}
                j["judge"].append(cat[c1])
                j["deep"].append(cat[h])
    out = {"provenance": {"script": "pairwise/testdata/comp_res_reference.py",
                          "python": sys.version.split()[0], "scipy": scipy.__version__,
                          "statsmodels": statsmodels.__version__, "sklearn": sklearn.__version__},
           "judges": {}}
    for name in sorted(judges):
        j = judges[name]
        n_cons = len(j["judge"])
        out["judges"][name] = {
            "pairs": j["pairs"],
            "consistency": [j["consistent"], j["pairs"]], "consistency_ci95": wilson(j["consistent"], j["pairs"]),
            "first_slot": [j["first"], j["decided"]], "first_slot_p": binomtest(j["first"], j["decided"], 0.5).pvalue,
            "acc_consistent": [j["correct"], n_cons], "acc_consistent_ci95": wilson(j["correct"], n_cons),
            "acc_abstained": [j["correct"], j["pairs"]],
            "kappa_linear": cohen_kappa_score(j["judge"], j["deep"], labels=[0, 1, 2], weights="linear"),
            "kappa_unweighted": cohen_kappa_score(j["judge"], j["deep"], labels=[0, 1, 2]),
        }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
