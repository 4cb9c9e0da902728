#!/usr/bin/env python3
"""Writes the saved-inspection fixtures used by cmd/evalcal's run tests.

Deterministic (no randomness): each run is spelled out below. Regenerate
with `python3 testdata/inspections/make_fixtures.py` from the repo root.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))

def verdict(completed, rf, te, flags):
    # DESIGN.md rule for inspectors we ship.
    if not completed or rf < 40 or te < 40:
        return "fail"
    if rf >= 70 and te >= 70 and not any(f["severity"] == "critical" for f in flags):
        return "pass"
    return "partial"

def flag(fid, sev, desc):
    return {"id": fid, "severity": sev, "description": desc, "evidence": ""}

# (run id, system, completed, light rf, light te, light flags, deep rf, deep te, deep flags)
RUNS = [
    ("20261101-090000-a1b2c3", "bug-triage", True, 85, 80, [], 82, 78, []),
    ("20261101-091500-b2c3d4", "bug-triage", True, 85, 80, [], 60, 55, [flag("placeholder-output", "warning", "output holds placeholder text")]),
    ("20261101-093000-c3d4e5", "bug-triage", False, 30, 20, [flag("log-unterminated", "critical", "log has no terminator")], 25, 15, [flag("log-unterminated", "critical", "log has no terminator")]),
    ("20261102-100000-d4e5f6", "release-notes", True, 85, 80, [], 79, 74, []),
    ("20261102-101500-e5f6a7", "release-notes", True, 85, 80, [], 50, 45, [flag("order-mismatch", "warning", "log order differs from manifest")]),
    ("20261102-103000-f6a7b8", "release-notes", True, 70, 60, [flag("missing-binding", "warning", "declared service has no binding")], 68, 58, [flag("missing-binding", "critical", "declared service has no binding")]),
    ("20261103-110000-a7b8c9", "docs-sync", True, 85, 80, [], 84, 80, []),
    ("20261103-111500-b8c9d0", "docs-sync", True, 85, 80, [], 35, 30, [flag("placeholder-output", "critical", "output holds placeholder text")]),
    ("20261103-113000-c9d0e1", "docs-sync", True, 60, 65, [flag("slow-step", "info", "a step took long")], 72, 75, []),
    ("20261104-120000-d0e1f2", "dependency-audit", True, 85, 80, [], 80, 76, []),
    ("20261104-121500-e1f2a3", "dependency-audit", False, 35, 30, [flag("error-file", "critical", "workspace holds __error.md")], 30, 25, [flag("error-file", "critical", "workspace holds __error.md")]),
    ("20261104-123000-f2a3b4", "dependency-audit", True, 85, 80, [], 83, 79, [flag("truncated-output", "info", "an output ends mid-sentence")]),
]

def inspection(rid, system, depth, completed, rf, te, flags):
    return {"run_id": rid, "system": system, "depth": depth,
            "runtime_fidelity": rf, "task_effectiveness": te,
            "services": [], "flags": flags,
            "verdict": verdict(completed, rf, te, flags),
            "summary": f"{depth} inspection of {rid}",
            "cost": {"seconds": 0, "tokens": 0, "usd": 0}}

def write(name, runs, drop_deep=()):
    with open(os.path.join(HERE, name), "w") as f:
        for (rid, system, completed, lrf, lte, lfl, drf, dte, dfl) in runs:
            f.write(json.dumps(inspection(rid, system, "light", completed, lrf, lte, lfl), sort_keys=True) + "\n")
            if rid not in drop_deep:
                f.write(json.dumps(inspection(rid, system, "deep", completed, drf, dte, dfl), sort_keys=True) + "\n")

write("twelve.jsonl", RUNS)
# The same runs with one deep inspection missing: a partial report.
write("missing-deep.jsonl", RUNS, drop_deep={"20261103-111500-b8c9d0"})
# Three runs of one system: homogeneous.
write("homogeneous.jsonl", RUNS[:3])
# Two runs: insufficient.
write("two.jsonl", RUNS[3:5])

# The same runs where deep saw exactly what light saw: 12 of 12 agree.
# Against twelve.jsonl (8 of 12) the agreement change is real.
AGREE = [(rid, system, completed, lrf, lte, lfl, lrf, lte, lfl)
         for (rid, system, completed, lrf, lte, lfl, _drf, _dte, _dfl) in RUNS]
write("agree.jsonl", AGREE)
