#!/usr/bin/env python3
"""Writes the format-3 inspection cache entries of two inspections, from the
layout documented in runner/cache.go, independently of the Go code.

Provenance: Python 3.11.7 (Debian), standard library only (hashlib, struct).
Run from this directory:  python3 make_entries.py
It writes entries.json: for each case, the key parts and the entry's bytes
as hex; runner/cache_test.go builds the same inspections and compares.
"""
import hashlib
import json
import struct


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def varint(n):  # zig-zag, as Go's binary.AppendVarint
    return uvarint((n << 1) ^ (n >> 63) if n >= 0 else ((-n - 1) << 1) | 1)


def string(s):
    b = s.encode("utf-8") if isinstance(s, str) else s
    return uvarint(len(b)) + b


def f64(x):
    return struct.pack("<d", x)


def lst(items, enc):
    if items is None:
        return b"\x00"
    return uvarint(len(items) + 1) + b"".join(enc(i) for i in items)


def entry(identity, depth, content_hash, insp):
    body = string(identity) + string(depth) + string(content_hash)
    body += string(insp["run_id"]) + string(insp["system"]) + string(insp["depth"])
    body += f64(insp["runtime_fidelity"]) + f64(insp["task_effectiveness"])
    body += lst(insp["services"], lambda s: string(s[0]) + string(s[1]))
    body += lst(insp["flags"], lambda f: b"".join(string(x) for x in f))
    body += string(insp["verdict"]) + string(insp["summary"])
    cost = insp["cost"]
    body += f64(cost["seconds"]) + varint(cost["tokens"]) + f64(cost["usd"])
    u = cost.get("usage")
    if u is None:
        body += b"\x00"
    else:
        body += b"\x01" + string(u["model"])
        for k in ("calls", "input", "output", "cached_input", "reasoning"):
            body += varint(u[k])
        body += b"\x01" if u["missing"] else b"\x00"
    key = hashlib.sha256(f"{identity}\0{depth}\0{content_hash}".encode()).hexdigest()
    checksum = hashlib.sha256(key.encode() + b"\0" + body).digest()
    return b"evcinsp\x03" + checksum + body


CASES = [
    {
        "name": "builtin",
        "identity": "builtin/1",
        "depth": "deep",
        "content_hash": "7f6c937ecfade63d4f82dd323c53c2729ca2cefe88326789d64c0dcd78d12f27",
        "inspection": {
            "run_id": "20300101-000003-000003", "system": "flaky-test-hunt", "depth": "deep",
            "runtime_fidelity": 85.0, "task_effectiveness": 62.5,
            "services": [["bisect", "completed"], ["owners", "errored"]],
            "flags": [["placeholder-output", "warning", "a binding holds placeholder text",
                       "bindings/owners.md: \"TODO\" — é"]],
            "verdict": "partial", "summary": "2 flags; partial",
            "cost": {"seconds": 0.25, "tokens": 2382, "usd": 0.0},
        },
    },
    {
        "name": "llm-nil-lists",
        "identity": "openai:judge-mini@abc#repeat=2",
        "depth": "light",
        "content_hash": "00ff",
        "inspection": {
            "run_id": "r1", "system": "", "depth": "light",
            "runtime_fidelity": 0.0, "task_effectiveness": 100.0,
            "services": None, "flags": [],
            "verdict": "fail", "summary": "",
            "cost": {"seconds": 1.5e-3, "tokens": 300, "usd": 0.000125,
                     "usage": {"model": "judge-mini", "calls": 2, "input": 200, "output": 100,
                               "cached_input": 64, "reasoning": 0, "missing": True}},
        },
    },
]

if __name__ == "__main__":
    out = []
    for c in CASES:
        b = entry(c["identity"], c["depth"], c["content_hash"], c["inspection"])
        out.append({"name": c["name"], "identity": c["identity"], "depth": c["depth"],
                    "content_hash": c["content_hash"], "entry_hex": b.hex()})
    with open("entries.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
