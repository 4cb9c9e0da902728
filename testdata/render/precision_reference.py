#!/usr/bin/env python3
"""Reference values of the display rule (report/precision.go: DisplayScore,
DisplayStat, DisplayP; report/render/render_format.go uses them).

Each input is a float64 written by its shortest repr (Python's repr, the
same digits as Go's strconv.FormatFloat(x, 'g', -1, 64)). The rule rounds
those decimal digits half away from zero (decimal.ROUND_HALF_UP on the
Decimal of repr(x)):

  score   2 decimals, both written                  quantize(Decimal('0.01'))
  stat    3 significant digits, trailing zeros trimmed; e-notation below 1e-4
  p       2 significant digits, trailing zeros trimmed; e-notation below 1e-4

Run: python3 testdata/render/precision_reference.py > testdata/render/precision_reference.json
(Python 3.11, decimal module; no other dependency.)
"""
import decimal
import json
import sys

D = decimal.Decimal
CTX = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_UP)


def round_sig(d, sig):
    if d == 0:
        return D(0)
    exp = d.adjusted()  # exponent of the leading digit
    q = D(1).scaleb(exp - sig + 1)
    return d.quantize(q, rounding=decimal.ROUND_HALF_UP, context=CTX)


def score(x):
    d = D(repr(x)).quantize(D("0.01"), rounding=decimal.ROUND_HALF_UP, context=CTX)
    s = "{:f}".format(d)
    if s.startswith("-") and D(s) == 0:
        s = s[1:]
    return s


def trim(s):
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def stat(x, sig=3):
    d = round_sig(D(repr(x)), sig)
    if d == 0:
        return "0"
    if abs(d) < D("1e-4"):
        # Go's strconv 'e', -1: d.ddde-XX with at least two exponent digits
        sign = "-" if d < 0 else ""
        t = d.copy_abs().normalize()
        digits = str(t.as_tuple().digits and "".join(map(str, t.as_tuple().digits)))
        e = t.adjusted()
        mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return "{}{}e{}{:02d}".format(sign, mant, "-" if e < 0 else "+", abs(e))
    return trim("{:f}".format(d.normalize() if d == d.to_integral() else d))


def pvalue(x):
    return stat(x, 2)


INPUTS = [
    78.26086956521739, 0.24624999999999997, 2.675, 2.665, 64.42631262842104,
    87.73909467543746, 45.350915670106815, 100.0, 0.0, -0.0, -0.004, -0.005,
    -5.714285714285714, 99.995, 99.99499999999999, 0.5, 1.0, 12.0, 0.1, 0.30000000000000004,
    1234567.891, 0.000123456789, 0.0000123456789, 1.5e-07, 0.999999949, 0.9999995,
    28.571428571428573, 0.00043, 3.7371e-13, 0.0312500000000001, 1e-300, 0.05, 0.049999,
    -39.62857142857143, 123456.5, 0.0943603, 49.86044376899696, 0.0002617021276595745,
]


def main():
    rows = [{"x": repr(x), "score": score(x), "stat": stat(x), "p": pvalue(abs(x))} for x in INPUTS]
    json.dump({"tool": "python3 decimal (ROUND_HALF_UP on repr(x))",
               "python": sys.version.split()[0], "rows": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
