#!/usr/bin/python3
"""Writes prediction.db: a task_prediction_log table in DuDuClaw's shape
for `evalcal score --sqlite`. Deterministic (seeded). Run from this
directory."""
import json, os, random, sqlite3
from datetime import datetime, timedelta, timezone

rng = random.Random(4)
if os.path.exists("prediction.db"):
    os.remove("prediction.db")
db = sqlite3.connect("prediction.db")
db.execute("""CREATE TABLE task_prediction_log (
    prediction_id TEXT PRIMARY KEY, task_id TEXT, agent_id TEXT, round INTEGER,
    state_key TEXT, prediction_json TEXT, prediction_source TEXT, created_at TEXT)""")
t0 = datetime(2026, 8, 1, tzinfo=timezone.utc)
cats = ["negligible", "moderate", "significant", "severe"]
for agent, skill in [("coder", 0.8), ("support", 0.55)]:
    for i in range(60):
        conf = round(rng.choice([0.3, 0.5, 0.6, 0.7, 0.8, 0.9]), 2)
        right = rng.random() < (conf if skill > 0.7 else 0.6)
        cat = rng.choice(cats[:2]) if right else rng.choice(cats[2:])
        err = round(rng.uniform(0, 0.45) if right else rng.uniform(0.3, 1.0), 3)
        created = t0 + timedelta(hours=6 * i)
        pj = {"confidence": conf, "category": cat, "composite_error": err,
              "settled_at": None if i >= 57 else (created + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "fidelity": "full"}
        db.execute("INSERT INTO task_prediction_log VALUES (?,?,?,?,?,?,?,?)",
                   (f"{agent}-{i:03d}", f"task-{i}", agent, 1, "k", json.dumps(pj), "prior",
                    created.strftime("%Y-%m-%dT%H:%M:%SZ")))
db.commit()
db.close()
