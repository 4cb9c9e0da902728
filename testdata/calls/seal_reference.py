#!/usr/bin/python3
"""Reference version 2 seals for forecast/seal_v2_test.go, computed with
hashlib by make_examples.py's seal_v2 (not by evalcal). Run from this
directory: python3 seal_reference.py"""
from make_examples import seal_v2  # noqa: writes the example files too

cases = [
    {"id": "c1", "agent": "alpha", "season": "s1", "decider": "llm", "action": "buy", "pool": "ETH",
     "decided_at": "2026-01-01T00:00:00Z", "confidence": "0.7", "horizon_hours": "24",
     "reference_price": "100", "refused": "false"},
    {"id": "c1", "agent": "alpha", "season": "s1", "decider": "protective", "action": "buy", "pool": "ETH",
     "decided_at": "2026-01-01T00:00:00Z", "confidence": "0.7", "horizon_hours": "24",
     "reference_price": "100", "refused": "false"},
    # "\n" inside a value and a multi-byte character: lengths are in bytes.
    {"id": "c\n2", "agent": "\u00e9quipe", "season": "", "decider": "system", "action": "hold", "pool": "",
     "decided_at": "2026-01-01T00:00:00Z", "confidence": "", "horizon_hours": "",
     "reference_price": "", "refused": ""},
]
for c in cases:
    print(seal_v2(c))
