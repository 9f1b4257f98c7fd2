"""The packages of rumap, and the bundled data sets of the top-level ``data/`` folder installed as ``rumap/data/``.

Everything else is declared in pyproject.toml.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["rumap*"]), "rumap.data"], package_dir={"rumap.data": "data"})
