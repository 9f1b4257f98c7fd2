"""The privacy loss of a noise mechanism, from OpenDP's measurements (``pip install 'rumap[dp]'``).

Four mechanisms add noise to a vector of values to which one record
contributes at most ``sensitivity`` (in the L1 norm for Laplace, L2 for
Gaussian; a record that touches one value has the same sensitivity in both):

=====================  ============================  =============================
mechanism              OpenDP measurement            privacy of one release
=====================  ============================  =============================
``laplace``            ``make_laplace``, float data  epsilon (pure DP)
``discrete-laplace``   ``make_laplace``, integers    epsilon (pure DP)
``gaussian``           ``make_gaussian``, float      rho (zCDP), and (epsilon, delta)
``discrete-gaussian``  ``make_gaussian``, integers   rho (zCDP), and (epsilon, delta)
=====================  ============================  =============================

The accounting is OpenDP's, not rumap's: :func:`calibrate` builds the
measurement at the scale that gives the asked-for loss (b = sensitivity /
epsilon for Laplace, sigma = sensitivity / sqrt(2 rho) for Gaussian, or
OpenDP's binary search over sigma for a Gaussian asked by (epsilon, delta)),
and every figure it reports is the measurement's own privacy map evaluated at
the sensitivity: epsilon for Laplace; rho for Gaussian, and epsilon at delta
from ``make_zCDP_to_approxDP`` and ``make_fix_delta``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from rumap._validation import StrOptions, assumes_valid, validate_params
from rumap.errors import InputError, optional_module

__all__ = ["MECHANISMS", "DEFAULT_DELTA", "PrivacyLoss", "calibrate", "opendp_release"]

#: mechanism -> (OpenDP constructor, discrete): the choices of ``mechanism`` everywhere.
MECHANISMS: dict[str, tuple[str, bool]] = {
    "laplace": ("make_laplace", False),
    "discrete-laplace": ("make_laplace", True),
    "gaussian": ("make_gaussian", False),
    "discrete-gaussian": ("make_gaussian", True),
}

#: The delta at which a Gaussian release's rho is also stated as (epsilon, delta) when none is given.
DEFAULT_DELTA = 1e-6


@dataclass(frozen=True)
class PrivacyLoss:
    """The privacy of one release of a mechanism, as OpenDP's measurement maps state it.

    Parameters
    ----------
    mechanism : str
        A key of :data:`MECHANISMS`.
    sensitivity : float
        The most one record changes the released vector (L1 for Laplace, L2 for Gaussian).
    scale : float
        The Laplace scale b or the Gaussian standard deviation sigma.
    epsilon : float
        Pure epsilon (Laplace), or the epsilon of (epsilon, delta) (Gaussian).
    delta : float or None
        None for Laplace (pure DP).
    rho : float or None
        zero-concentrated DP's rho (Gaussian), None for Laplace.
    """

    mechanism: str
    sensitivity: float
    scale: float
    epsilon: float
    delta: float | None
    rho: float | None

    @property
    def discrete(self) -> bool:
        """Whether the noise is integer (the discrete mechanisms, for counts)."""
        return MECHANISMS[self.mechanism][1]

    def to_dict(self) -> dict[str, Any]:
        """``{"mechanism", "sensitivity", "scale", "epsilon", "delta", "rho", "accounting"}``."""
        return {**asdict(self), "accounting": "opendp"}


def _opendp() -> Any:
    optional_module("opendp", "differential privacy", "dp")  # the message names the package and the extra
    import types

    import opendp.combinators
    import opendp.domains
    import opendp.measurements
    import opendp.measures
    import opendp.metrics
    import opendp.mod
    import opendp.transformations

    # the names of opendp.prelude without its extras (it imports scikit-learn and polars: seconds, not 0.1 s)
    dp = types.SimpleNamespace(**{name: getattr(module, name) for module in (opendp.mod, opendp.domains,
                                                                             opendp.metrics, opendp.measures)
                                  for name in getattr(module, "__all__", ())},
                               m=opendp.measurements, c=opendp.combinators, t=opendp.transformations)
    dp.enable_features("contrib")
    return dp


def _measurement(dp: Any, mechanism: str, scale: float) -> Any:
    constructor, discrete = MECHANISMS[mechanism]
    atom = dp.atom_domain(T=int) if discrete else dp.atom_domain(T=float, nan=False)
    distance = dp.l1_distance if constructor == "make_laplace" else dp.l2_distance
    return getattr(dp.m, constructor)(dp.vector_domain(atom), distance(T=int if discrete else float),
                                      scale=float(scale))


def _d_in(mechanism: str, sensitivity: float) -> int | float:
    return int(sensitivity) if MECHANISMS[mechanism][1] else float(sensitivity)


def _approx(dp: Any, measurement: Any, delta: float) -> Any:
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement), delta)


def _calibrate_example() -> dict[str, Any]:
    return {"mechanism": "laplace", "sensitivity": 1.0, "epsilon": 1.0}


@validate_params({"mechanism": StrOptions(MECHANISMS), "sensitivity": "sensitivity",
                  "epsilon": [None, "privacy_loss"], "rho": [None, "privacy_loss"],
                  "delta": [None, "risk_bound"]},
                 example=_calibrate_example)
def calibrate(mechanism: str, sensitivity: float, epsilon: float | None = None, rho: float | None = None,
              delta: float | None = None) -> PrivacyLoss:
    """The scale of a mechanism for a privacy loss, and the loss OpenDP's measurement states at that scale.

    Parameters
    ----------
    mechanism : {"laplace", "discrete-laplace", "gaussian", "discrete-gaussian"}
    sensitivity : float
        The most one record changes the released vector; an integer for the
        discrete mechanisms.
    epsilon : float, optional
        The privacy loss asked for: pure epsilon for Laplace; for Gaussian, the
        epsilon of (epsilon, delta).
    rho : float, optional
        zCDP's rho (Gaussian only). Give epsilon or rho, not both.
    delta : float, optional
        Gaussian only: the delta of (epsilon, delta) (default
        :data:`DEFAULT_DELTA`).

    Returns
    -------
    PrivacyLoss

    Raises
    ------
    InputError
        Neither or both of epsilon and rho, rho or delta for Laplace, a
        discrete mechanism with a sensitivity that is not an integer, or
        OpenDP not installed.

    Examples
    --------
    >>> loss = calibrate("laplace", 1.0, epsilon=0.5)
    >>> loss.scale, loss.epsilon
    (2.0, 0.5)
    >>> g = calibrate("gaussian", 1.0, rho=0.125)
    >>> g.scale, g.rho, round(g.epsilon, 4), g.delta
    (2.0, 0.125, 2.4191, 1e-06)
    """
    if (epsilon is None) == (rho is None):
        raise InputError("epsilon, rho: give the privacy loss as epsilon or as rho (zCDP, Gaussian), one of them")
    constructor, discrete = MECHANISMS[mechanism]
    if discrete and sensitivity != math.floor(sensitivity):
        raise InputError(f"sensitivity: the {mechanism} mechanism adds integer noise to integer values, so its "
                         f"sensitivity is an integer, got {sensitivity:g}")
    dp = _opendp()
    d_in = _d_in(mechanism, sensitivity)
    if constructor == "make_laplace":
        if rho is not None or delta is not None:
            raise InputError(f"{'rho' if rho is not None else 'delta'}: the {mechanism} mechanism is pure "
                             "epsilon-differential privacy; give epsilon alone")
        scale = float(sensitivity) / float(epsilon)  # type: ignore[arg-type]
        return PrivacyLoss(mechanism, float(sensitivity), scale, float(_measurement(dp, mechanism, scale).map(d_in)),
                           None, None)
    delta = DEFAULT_DELTA if delta is None else float(delta)
    if rho is not None:
        scale = float(sensitivity) / math.sqrt(2.0 * float(rho))
    else:
        scale = float(dp.binary_search_param(lambda s: _approx(dp, _measurement(dp, mechanism, s), delta),
                                             d_in=d_in, d_out=(float(epsilon), delta), T=float))
    measurement = _measurement(dp, mechanism, scale)
    stated_epsilon, _ = _approx(dp, measurement, delta).map(d_in)
    return PrivacyLoss(mechanism, float(sensitivity), scale, float(stated_epsilon), delta,
                       float(measurement.map(d_in)))


@assumes_valid
def opendp_release(loss: PrivacyLoss, values: Any) -> Any:
    """The values with the mechanism's noise drawn by OpenDP's own sampler (not reproducible: no seed).

    Parameters
    ----------
    loss : PrivacyLoss
        From :func:`calibrate`.
    values : array_like
        Integers for the discrete mechanisms, floats for the others.

    Returns
    -------
    list
        The noisy values.
    """
    dp = _opendp()
    kind = int if loss.discrete else float
    return _measurement(dp, loss.mechanism, loss.scale)([kind(v) for v in values])
