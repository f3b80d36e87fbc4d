"""The vMF log normalising constant and concentration estimate (``_vmf_density``).

References: mpmath's arbitrary-precision Bessel function (the test extra) and scipy's
``ive`` where it is representable; continuity where the implementation switches from
``ive`` to the uniform asymptotic expansion.
"""

import numpy as np
import pytest
from scipy.special import gammaln, ive

from shortclust.models.vmf import _density as density
from shortclust.models.vmf._density import (NU_SWITCH, R_MAX, estimate_concentration,
                                            log_vmf_normaliser)

mpmath = pytest.importorskip("mpmath")


def mpmath_log_normaliser(d, kappa):
    """``log c_d(kappa)`` at 40 digits."""
    with mpmath.workdps(40):
        nu, kappa = mpmath.mpf(d) / 2 - 1, mpmath.mpf(kappa)
        if kappa == 0:
            value = mpmath.loggamma(mpmath.mpf(d) / 2) - mpmath.log(2) \
                - mpmath.mpf(d) / 2 * mpmath.log(mpmath.pi)
        else:
            bessel = mpmath.besseli(nu, kappa, maxterms=10 ** 6)
            value = nu * mpmath.log(kappa) - mpmath.mpf(d) / 2 * mpmath.log(2 * mpmath.pi) \
                - mpmath.log(bessel)
        return float(value)


@pytest.mark.parametrize("d", [2, 3, 10, 50, 61, 62, 63, 100, 1000, 25936])
@pytest.mark.parametrize("kappa", [0.0, 1e-9, 0.5, 10.0, 100.0, 1e3, 1e4])
def test_log_normaliser_matches_mpmath(d, kappa):
    expected = mpmath_log_normaliser(d, kappa)
    got = float(log_vmf_normaliser(d, kappa)[0])
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("d", [2, 5, 20, 60])
def test_log_normaliser_matches_scipy_ive_at_moderate_values(d):
    kappa = np.array([0.1, 1.0, 7.0, 50.0, 300.0])
    nu = d / 2 - 1
    expected = nu * np.log(kappa) - d / 2 * np.log(2 * np.pi) - np.log(ive(nu, kappa)) - kappa
    np.testing.assert_allclose(log_vmf_normaliser(d, kappa), expected, rtol=1e-12)


def test_the_two_methods_agree_where_they_switch():
    # Both evaluations at the same orders around the switch: the ive-based one is exact
    # to double precision there, so this bounds the expansion's error at its worst.
    kappa = np.geomspace(1e-6, 1e6, 121)
    for nu in (NU_SWITCH - 0.5, NU_SWITCH, NU_SWITCH + 0.5, NU_SWITCH + 10):
        d = 2 * nu + 2
        from_ive = nu * np.log(kappa) - d / 2 * np.log(2 * np.pi) \
            - density.log_bessel_iv_small_order(nu, kappa)
        from_expansion = density._log_normaliser_debye(nu, kappa)
        np.testing.assert_allclose(from_expansion, from_ive, rtol=1e-10, atol=1e-9)


def test_continuous_in_kappa_across_the_ive_underflow():
    # Below kappa ~ 1e-10 ive(29, kappa) underflows and the power series takes over.
    kappa = np.geomspace(1e-14, 1e-6, 400)
    values = log_vmf_normaliser(60, kappa)
    limit = float(log_vmf_normaliser(60, 0.0)[0])
    assert np.isfinite(values).all()
    np.testing.assert_allclose(values, limit, rtol=1e-14)  # flat near the uniform density


def test_large_kappa_and_dimension_are_finite_and_decreasing():
    kappa = np.array([0.0, 1.0, 1e3, 5e3, 1e4, 1e6, 1e10, 1e13])
    for d in (25936, 43891, 100000):
        values = log_vmf_normaliser(d, kappa)
        assert np.isfinite(values).all()
        assert np.all(np.diff(values) < 0)  # c_d falls as the density concentrates


def test_kappa_zero_is_the_uniform_density():
    for d in (2, 3, 60, 62, 1000):
        uniform = gammaln(d / 2) - np.log(2) - d / 2 * np.log(np.pi)
        assert float(log_vmf_normaliser(d, 0.0)[0]) == pytest.approx(uniform, rel=1e-11)


def test_concentration_estimate_is_the_papers_formula_and_capped():
    r = np.array([0.0, 0.3, 0.9])
    np.testing.assert_allclose(estimate_concentration(r, 500), (r * 500 - r ** 3) / (1 - r * r))
    capped = estimate_concentration([1.0, 1.5], 25936)
    assert np.isfinite(capped).all()
    np.testing.assert_allclose(capped, estimate_concentration(R_MAX, 25936))
