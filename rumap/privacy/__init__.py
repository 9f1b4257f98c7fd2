"""Differential privacy: the privacy loss of noise mechanisms from OpenDP's accounting, and their seeded samplers.

:mod:`rumap.privacy.accounting` builds OpenDP's measurement of a mechanism at
the scale a privacy loss needs and states the loss from the measurement's own
privacy map; :mod:`rumap.privacy.samplers` draws that noise from a seeded numpy
generator, so that a release is reproducible from its seed; :mod:`rumap.privacy.mst`
synthesizes categorical records by MST with that accounting. OpenDP is optional
(``pip install 'rumap[dp]'``) and imported only when a loss is computed.
"""
