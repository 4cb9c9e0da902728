#!/usr/bin/python3
"""Writes the example gate inputs (events.jsonl, history.jsonl). Run from
this directory."""
import json

lines = []
def cand(name, layer, born, evidence, state="shadow"):
    lines.append(json.dumps({"type": "candidate", "candidate": name, "layer": layer,
                             "born_seq": born, "evidence": evidence, "state": state}))
def events(name, layer, start, spec):
    # spec: string of h (hit) and m (miss), seq from start.
    for i, c in enumerate(spec):
        lines.append(json.dumps({"candidate": name, "layer": layer, "seq": start + i, "hit": c == "h"}))

# task layer (baseline from history: 3 of 10 high-risk = 0.3), k = 3.
cand("formatter-before-retry", "task", 0, "tool_record")
cand("friday-changes-break", "task", 10, "none")
events("friday-changes-break", "task", 5, "mmmmm")          # before birth: ignored
events("friday-changes-break", "task", 11, "mhhhhhhhhhhh")  # 11 of 12 -> inject
cand("large-diff-risk", "task", 0, "none", "injected")
events("large-diff-risk", "task", 1, "hhhhhhhhhhhhmmmmmmmm")  # whole record clears 0.3, last 8 all misses -> demote
cand("late-night-risk", "task", 0, "none")
events("late-night-risk", "task", 1, "hhh")                 # 3 outcomes -> shadow
# conversation layer (5 history records: default baseline 0.5), k = 2.
cand("angry-user-escalates", "conversation", 0, "none")
events("angry-user-escalates", "conversation", 1, "hmmmmmmmmmmmmmmmm")  # 1 of 17 -> retire
cand("refund-keyword", "conversation", 0, "audit")
cand("long-thread-drift", "conversation", 0, "none")
events("long-thread-drift", "conversation", 1, "hhhhhhmmmm")  # 6 of 10 -> shadow
lines.append('{"candidate":"long-thread-drift","layer":"conversation","seq":"eleven","hit":true}')
with open("events.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")

hist = [{"layer": "task", "high_risk": i < 3} for i in range(10)]
hist += [{"layer": "conversation", "high_risk": i < 4} for i in range(5)]
with open("history.jsonl", "w") as f:
    f.write("\n".join(json.dumps(h) for h in hist) + "\n")
