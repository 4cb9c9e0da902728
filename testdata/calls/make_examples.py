#!/usr/bin/python3
"""Writes the example calls with seals computed by hashlib, independently
of evalcal's Go code. Run from this directory.

calls.jsonl     the example, sealed calls carrying version 2 seals
calls_v1.jsonl  the same calls with version 1 seals (a8 and a9 unsealed),
                as the example was before version 2
relabel.jsonl   calls edited after sealing (issue 13 item 16): which edits
                each seal version catches
"""
import hashlib

V2_FIELDS = ["id", "agent", "season", "decider", "action", "pool", "decided_at",
             "confidence", "horizon_hours", "reference_price", "refused"]


def seal_v1(id, agent, decided_at, action, conf, horizon, ref):
    # Sealed fields joined by "\n": strings decoded, numbers as literal text.
    return hashlib.sha256("\n".join([id, agent, decided_at, action, conf, horizon, ref]).encode()).hexdigest()


def seal_v2(fields):
    # For each field in order: name "=" byte length ":" value "\n"; values
    # as text (strings decoded, numbers and booleans as written, "" when
    # missing); "v2:" and the hex digest.
    h = hashlib.sha256()
    for name in V2_FIELDS:
        v = fields.get(name, "").encode()
        h.update(name.encode() + b"=" + str(len(v)).encode() + b":" + v + b"\n")
    return "v2:" + h.hexdigest()


def call(id, agent, season, decider, action, conf, horizon, ref, at, pool, refused=False,
         seal=None, sealed_as=None):
    """One call line. seal is None, "v1" or "v2"; sealed_as overrides the
    field texts the seal is computed from (to write a call edited after
    sealing)."""
    texts = {"id": id, "agent": agent, "season": season, "decider": decider, "action": action,
             "pool": pool, "decided_at": at, "confidence": conf or "", "horizon_hours": horizon or "",
             "reference_price": ref or "", "refused": "true" if refused else "false"}
    parts = [f'"id":"{id}"', f'"agent":"{agent}"', f'"season":"{season}"', f'"decider":"{decider}"', f'"action":"{action}"']
    if conf is not None: parts.append(f'"confidence":{conf}')
    if horizon is not None: parts.append(f'"horizon_hours":{horizon}')
    if ref is not None: parts.append(f'"reference_price":{ref}')
    parts += [f'"decided_at":"{at}"', f'"pool":"{pool}"', f'"refused":{texts["refused"]}']
    s = dict(texts, **(sealed_as or {}))
    if seal == "v1":
        parts.append('"seal":"%s"' % seal_v1(s["id"], s["agent"], s["decided_at"], s["action"],
                                              s["confidence"], s["horizon_hours"], s["reference_price"]))
    elif seal == "v2":
        parts.append('"seal":"%s"' % seal_v2(s))
    return "{" + ",".join(parts) + "}"


def example(v):
    """The example calls; v is the seal version of the sealed ones."""
    hold = v if v == "v2" else None  # version 1 examples left holds and exits unsealed
    return [
        # atlas, 2026-q1: six resolved calls -> calibration measured.
        call("a1", "atlas", "2026-q1", "llm", "buy", "0.8", "24", "100.0", "2026-03-01T00:00:00Z", "ETH", seal=v),   # price 104 exactly at due: right
        call("a2", "atlas", "2026-q1", "llm", "sell", "0.7", "24", "104", "2026-03-01T06:00:00Z", "ETH", seal=v),    # 101 at due+1h30: right
        call("a3", "atlas", "2026-q1", "llm", "buy", "0.9", "12", "103", "2026-03-02T00:00:00Z", "ETH", seal=v),     # only price at due+2h: closed 7 days on
        call("a4", "atlas", "2026-q1", "deterministic", "buy", "0.6", "24", "101", "2026-03-03T00:00:00Z", "ETH", seal=v),  # 101 = reference: wrong
        call("a5", "atlas", "2026-q1", "llm", "sell", "0.75", "24", "99.5", "2026-03-04T00:00:00Z", "BTC", refused=True, seal=v),  # refused, 98 below: right
        call("a6", "atlas", "2026-q1", "llm", "buy", "0.85", "6", "98", "2026-03-05T00:00:00Z", "BTC", seal=v),      # 97 at due: wrong
        call("a7", "atlas", "2026-q1", "llm", "buy", "0.55", "48", "97", "2026-03-05T12:00:00Z", "BTC", seal=v),     # 99 at due+30m: right
        call("a8", "atlas", "2026-q1", "system", "hold", None, None, None, "2026-03-06T00:00:00Z", "BTC", seal=hold),  # system hold: ignored
        call("a9", "atlas", "2026-q1", "protective", "sell", "0.9", "1", "97", "2026-03-06T00:00:00Z", "BTC", seal=hold),  # protective exit: ignored
        call("a10", "atlas", "2026-q1", "llm", "buy", "0.65", "4", "100", "2026-03-07T00:00:00Z", "ETH", seal=v),    # no price, window passed: unresolved
        call("a11", "atlas", "2026-q1", "llm", "buy", "0.7", "24", "99", "2026-03-09T12:00:00Z", "ETH", seal=v),     # due after as-of: pending
        call("a12", "atlas", "2026-q1", "llm", "buy", "0.95", "24", "100.0", "2026-03-01T00:00:00Z", "ETH", seal=v,
             sealed_as={"confidence": "0.6"}),                                                                     # confidence restated: tampered
        # birch, 2026-q1: three resolved -> calibration not measured; 2026-q2: one pending.
        call("b1", "birch", "2026-q1", "llm", "buy", "0.6", "24", "100", "2026-03-01T00:00:00Z", "ETH"),
        call("b2", "birch", "2026-q1", "llm", "sell", "0.6", "24", "100", "2026-03-01T00:00:00Z", "ETH"),
        call("b3", "birch", "2026-q1", "deterministic", "sell", "0.9", "24", "99.5", "2026-03-04T00:00:00Z", "BTC"),
        call("b4", "birch", "2026-q2", "llm", "buy", "0.7", "72", "100", "2026-03-09T00:00:00Z", "ETH"),
        '{"id":"b5","agent":"birch","season":"2026-q1","decider":"llm","action":"buy","confidence":1.3,"horizon_hours":24,"reference_price":100,"decided_at":"2026-03-01T00:00:00Z","pool":"ETH"}',
    ]


# Each call below is a losing buy as sealed (price 97 at due, reference
# 98), edited after sealing as its comment says.
relabel = [
    call("r1", "cora", "2026-q1", "protective", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "BTC", seal="v1",
         sealed_as={"decider": "llm"}),        # relabelled protective: a version 1 seal still matches
    call("r2", "cora", "2026-q1", "protective", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "BTC", seal="v2",
         sealed_as={"decider": "llm"}),        # relabelled protective: version 2 catches it
    call("r3", "cora", "2026-q1", "llm", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "ETH", seal="v2",
         sealed_as={"pool": "BTC"}),           # moved to another pool
    call("r4", "cora", "2026-q2", "llm", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "BTC", seal="v2",
         sealed_as={"season": "2026-q1"}),     # moved to another season
    call("r5", "cora", "2026-q1", "llm", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "BTC", refused=True, seal="v2",
         sealed_as={"refused": "false"}),      # marked refused
    call("r6", "cora", "2026-q1", "llm", "buy", "0.9", "6", "98", "2026-03-05T00:00:00Z", "BTC", seal="v2"),  # untouched: valid
]

for name, lines in [("calls.jsonl", example("v2")), ("calls_v1.jsonl", example("v1")), ("relabel.jsonl", relabel)]:
    with open(name, "w") as f:
        f.write("\n".join(lines) + "\n")
