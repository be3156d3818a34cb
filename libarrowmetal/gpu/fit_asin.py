"""Prints the coefficients of am_acos64's polynomial (dialect_unary64.c):
P(z) = (asin(t) - t) / t^3 with z = t^2, interpolated at the Chebyshev nodes
of z in [0, 1/4] (|t| <= 0.5) with mpmath at 60 digits, rounded to doubles,
and the worst relative error of P evaluated with those doubles (exactly,
over 2,001 points of the interval), for each degree from 9 to 14.

    python libarrowmetal/gpu/fit_asin.py      (needs mpmath)
"""

import mpmath as mp

mp.mp.dps = 60
HIGH = mp.mpf(1) / 4


def target(z):
    if z == 0:
        return mp.mpf(1) / 6
    t = mp.sqrt(z)
    return (mp.asin(t) - t) / (z * t)


def fit(degree):
    """Monomial coefficients in z, lowest first, as doubles."""
    n = degree + 1
    nodes = [HIGH / 2 + HIGH / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vandermonde = mp.matrix([[x**j for j in range(n)] for x in nodes])
    c = mp.lu_solve(vandermonde, mp.matrix([target(x) for x in nodes]))
    return [float(c[j]) for j in range(n)]


def worst_error(coefficients):
    worst = mp.mpf(0)
    for i in range(2001):
        z = HIGH * i / 2000
        p = mp.mpf(0)
        for c in reversed(coefficients):
            p = p * z + c
        worst = max(worst, abs(p / target(z) - 1))
    return worst


if __name__ == "__main__":
    for degree in range(9, 15):
        coefficients = fit(degree)
        print(f"degree {degree}: 2^{float(mp.log(worst_error(coefficients), 2)):.1f}")
        print("  " + ", ".join(c.hex() for c in coefficients))
