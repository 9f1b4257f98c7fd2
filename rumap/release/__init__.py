"""From map to release: a plan of masking steps applied to a data set, and the report of what was released.

- :mod:`rumap.release.plan`: the steps and the plan file (JSON) they make;
- :mod:`rumap.release.apply`: one record per masking method as a step, and applying a plan;
- :mod:`rumap.release.report`: the released file measured against the original, beside the maps' predictions;
- :mod:`rumap.release.methods`: a step's record and the plan's :class:`~rumap.release.methods.Step`;
  :mod:`rumap.release.step_apply`: one step applied; :mod:`rumap.release.prediction`: its map at its value.
"""

# The registry of step methods first: a step checks itself against it (rumap.release.methods.step_methods). It
# loads without pandas, so that the command line builds its flags from the records.
from rumap.release import registry as _registry  # noqa: F401
