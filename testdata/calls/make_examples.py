#!/usr/bin/python3
"""Writes the example calls (calls.jsonl) with seals computed by hashlib,
independently of evalcal's Go code. Run from this directory."""
import hashlib

def seal(id, agent, decided_at, action, conf, horizon, ref):
    # Sealed fields joined by "\n": strings decoded, numbers as literal text.
    return hashlib.sha256("\n".join([id, agent, decided_at, action, conf, horizon, ref]).encode()).hexdigest()

def call(id, agent, season, decider, action, conf, horizon, ref, at, pool, refused=False, sealed=False, seal_override=None):
    parts = [f'"id":"{id}"', f'"agent":"{agent}"', f'"season":"{season}"', f'"decider":"{decider}"', f'"action":"{action}"']
    if conf is not None: parts.append(f'"confidence":{conf}')
    if horizon is not None: parts.append(f'"horizon_hours":{horizon}')
    if ref is not None: parts.append(f'"reference_price":{ref}')
    parts += [f'"decided_at":"{at}"', f'"pool":"{pool}"', f'"refused":{"true" if refused else "false"}']
    if sealed:
        s = seal(id, agent, at, action, conf or "", horizon or "", ref or "")
        parts.append(f'"seal":"{seal_override or s}"')
    return "{" + ",".join(parts) + "}"

lines = [
    # atlas, 2026-q1: six resolved calls -> calibration measured.
    call("a1", "atlas", "2026-q1", "llm", "buy", "0.8", "24", "100.0", "2026-03-01T00:00:00Z", "ETH", sealed=True),   # price 104 exactly at due: right
    call("a2", "atlas", "2026-q1", "llm", "sell", "0.7", "24", "104", "2026-03-01T06:00:00Z", "ETH", sealed=True),    # 101 at due+1h30: right
    call("a3", "atlas", "2026-q1", "llm", "buy", "0.9", "12", "103", "2026-03-02T00:00:00Z", "ETH", sealed=True),     # only price at due+2h: closed 7 days on
    call("a4", "atlas", "2026-q1", "deterministic", "buy", "0.6", "24", "101", "2026-03-03T00:00:00Z", "ETH", sealed=True),  # 101 = reference: wrong
    call("a5", "atlas", "2026-q1", "llm", "sell", "0.75", "24", "99.5", "2026-03-04T00:00:00Z", "BTC", refused=True, sealed=True),  # refused, 98 below: right
    call("a6", "atlas", "2026-q1", "llm", "buy", "0.85", "6", "98", "2026-03-05T00:00:00Z", "BTC", sealed=True),      # 97 at due: wrong
    call("a7", "atlas", "2026-q1", "llm", "buy", "0.55", "48", "97", "2026-03-05T12:00:00Z", "BTC", sealed=True),     # 99 at due+30m: right
    call("a8", "atlas", "2026-q1", "system", "hold", None, None, None, "2026-03-06T00:00:00Z", "BTC"),                 # system hold: ignored
    call("a9", "atlas", "2026-q1", "protective", "sell", "0.9", "1", "97", "2026-03-06T00:00:00Z", "BTC"),            # protective exit: ignored
    call("a10", "atlas", "2026-q1", "llm", "buy", "0.65", "4", "100", "2026-03-07T00:00:00Z", "ETH", sealed=True),    # no price, window passed: unresolved
    call("a11", "atlas", "2026-q1", "llm", "buy", "0.7", "24", "99", "2026-03-09T12:00:00Z", "ETH", sealed=True),     # due after as-of: pending
    call("a12", "atlas", "2026-q1", "llm", "buy", "0.95", "24", "100.0", "2026-03-01T00:00:00Z", "ETH", sealed=True,
         seal_override=seal("a12", "atlas", "2026-03-01T00:00:00Z", "buy", "0.6", "24", "100.0")),                       # confidence restated: tampered
    # birch, 2026-q1: three resolved -> calibration not measured; 2026-q2: one pending.
    call("b1", "birch", "2026-q1", "llm", "buy", "0.6", "24", "100", "2026-03-01T00:00:00Z", "ETH"),
    call("b2", "birch", "2026-q1", "llm", "sell", "0.6", "24", "100", "2026-03-01T00:00:00Z", "ETH"),
    call("b3", "birch", "2026-q1", "deterministic", "sell", "0.9", "24", "99.5", "2026-03-04T00:00:00Z", "BTC"),
    call("b4", "birch", "2026-q2", "llm", "buy", "0.7", "72", "100", "2026-03-09T00:00:00Z", "ETH"),
    '{"id":"b5","agent":"birch","season":"2026-q1","decider":"llm","action":"buy","confidence":1.3,"horizon_hours":24,"reference_price":100,"decided_at":"2026-03-01T00:00:00Z","pool":"ETH"}',
]
with open("calls.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")
