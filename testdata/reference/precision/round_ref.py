#!/usr/bin/env python3
"""Reference values for evalcal's document precision rule (report.RoundFloat).

For each input float x (written as repr(x), Python's shortest round-trip
representation, the same digits as Go's strconv.FormatFloat(x, 'g', -1, 64)),
rounds the DECIMAL repr(x) half away from zero (decimal.ROUND_HALF_UP, which
rounds ties away from zero):

  percent    Decimal(repr(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
  statistic  Context(prec=6, rounding=ROUND_HALF_UP).plus(Decimal(repr(x)))
  pvalue     Context(prec=3, rounding=ROUND_HALF_UP).plus(Decimal(repr(x)))

Run: python3 testdata/reference/precision/round_ref.py > testdata/reference/precision/round_ref.json
"""
import json
import platform
import random
import sys
from decimal import Decimal, Context, ROUND_HALF_UP, getcontext

getcontext().prec = 400  # quantize needs room for inputs up to 1.8e308

hand = [
    # from the issue: float artefacts must not show
    0.24624999999999997, 78.26086956521739, 0.016518977188140944, 0.009819977578644359,
    # ties at the rounding digit of the shortest repr (binary value below the tie)
    2.675, -2.675, 1.005, 0.125, 0.375, 99.995, 0.0005, 1.0000005, 9.9999995, 123456.5, 0.0009995,
    0.9995, 0.99995, 12.345, 1.2345e-7, 6.2345e-5,
    # carries that add a digit
    9.999, 99.999, 999999.5, 0.0999995, 9.995e-10,
    # zeros and signs
    0.0, -0.0, -0.001, -0.004, 0.0049999, -0.005, -1e-9, 1e-9,
    # integers and exactly representable values
    1.0, 100.0, 66.0, 0.5, 0.25, 1234567.0, 12345678.9, 1e6, 1e21, 1e22,
    # tiny and huge
    5e-324, 2.2250738585072014e-308, 1e-300, 1.7976931348623157e308, 1e300, 2.604166666667999e-05,
    # real figures of the goldens
    66.66666666666667, 39.06220888727995, 86.18799089087868, 0.6727328054782615, 0.16098446386297824,
    -10.583333333333334, 0.386381513206576, -0.020419207381541515, 0.5000000000000001, 0.7934506856227626,
    2.458333333333329, 0.045937499999999964, -0.002083333333333326, 1.5000000000000124, 2.241435252830152,
    0.0086068850594411, 33.33333333333333, 16.666666666666657, 0.027854447637, 0.02241749145,
]

rng = random.Random(20261201)
generated = []
for _ in range(800):
    mag = rng.choice([1e-8, 1e-5, 1e-3, 0.01, 0.1, 1, 10, 100, 1e4, 1e7])
    generated.append(rng.uniform(-1, 1) * mag)
for _ in range(250):
    # decimal ties at 2 decimals and at 6 significant digits
    k = rng.randrange(-100000, 100000)
    generated.append(float(f"{k}.{rng.randrange(0, 100):02d}5"))
    e = rng.randrange(-12, 12)
    generated.append(float(f"{rng.randrange(100000, 1000000)}5e{e}"))

def sig(d, prec):
    return Context(prec=prec, rounding=ROUND_HALF_UP).plus(d)

cases = []
for x in hand + generated:
    d = Decimal(repr(x))
    cases.append({
        "x": repr(x),
        "percent": str(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)),
        "statistic": str(sig(d, 6)),
        "pvalue": str(sig(d, 3)),
    })

json.dump({
    "provenance": f"testdata/reference/precision/round_ref.py, Python {platform.python_version()} decimal module "
                  "(ROUND_HALF_UP on Decimal(repr(x)); quantize 0.01 / Context(prec=6) / Context(prec=3))",
    "cases": cases,
}, sys.stdout, indent=1)
sys.stdout.write("\n")
