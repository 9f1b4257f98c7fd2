"""The work budget: limits checked before a run starts, so one request cannot tie up the machine.

A run is refused, before any work, when it would exceed one of the limits of
a :class:`WorkBudget`, with a message naming the limit and what to reduce.
The dashboard and loaded configurations always use :data:`DEFAULT_BUDGET`; the
command line can raise it explicitly with ``--work-limit``
(:meth:`WorkBudget.raised`).

The default allows every published figure and the benchmarks (an empirical
map of 100,000 records x 200 replicates x 20 values is 4e8 record-values)
with room to spare, and refuses requests such as 10^7 replicates or a grid
of 10^6 values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rumap._validation import check_scalar
from rumap.errors import InputError

__all__ = ["WorkBudget", "DEFAULT_BUDGET", "WORK_LIMIT_FLAG"]

#: The command-line flag that raises the budget (named in every refusal).
WORK_LIMIT_FLAG = "--work-limit"


@dataclass(frozen=True)
class WorkBudget:
    """Limits on one run.

    Parameters
    ----------
    work : float
        Elementary steps: records x replicates x parameter values for a
        simulation, records x records x keys for distance linkage, records x
        records x variables / k for MDAV-type microaggregation.
    grid : int
        Values in one parameter grid.
    cells : float
        Numbers a run holds in its results (replicates x values x curves).

    Examples
    --------
    >>> from rumap.budget import DEFAULT_BUDGET
    >>> DEFAULT_BUDGET.check_work(1e6, "records x replicates x values")
    >>> DEFAULT_BUDGET.raised(1e11).work
    100000000000.0
    """

    work: float = 2e9
    grid: int = 10_001
    cells: float = 5e7

    def raised(self, work: float) -> WorkBudget:
        """This budget with the work limit set to ``work`` and the other limits scaled alike.

        Parameters
        ----------
        work : float
            The new limit on elementary steps (``--work-limit``).

        Returns
        -------
        WorkBudget
        """
        work = check_scalar("work_limit", work)
        scale = max(1.0, work / self.work)
        return replace(self, work=float(work), grid=int(self.grid * scale), cells=self.cells * scale)

    def check_work(self, amount: float, what: str, instead: str = "") -> None:
        """Refuse ``amount`` elementary steps over the limit.

        Parameters
        ----------
        amount : float
        what : str
            How the amount is counted, e.g. ``"1000 records x 200 replicates x 20 values"``.
        instead : str, optional
            What would fit, in the caller's words (``"give --replicates 12 or --no-prediction"``);
            the message says ``ask for less`` without it.

        Raises
        ------
        InputError
        """
        if amount > self.work:
            raise InputError(f"the run needs {amount:.3g} steps ({what}), over the work limit of {self.work:.3g}: "
                             f"{instead or 'ask for less'} ({WORK_LIMIT_FLAG} raises the limit on the command line)")

    def check_grid(self, size: int, name: str) -> None:
        """Refuse a parameter grid of more than :attr:`grid` values.

        Parameters
        ----------
        size : int
        name : str
            The grid's name, e.g. ``"lambda2"``.

        Raises
        ------
        InputError
        """
        if size > self.grid:
            raise InputError(f"the {name} grid has {size} values, over the limit of {self.grid} "
                             f"({WORK_LIMIT_FLAG} raises it on the command line)")

    def check_cells(self, amount: float, what: str) -> None:
        """Refuse results of more than :attr:`cells` numbers.

        Parameters
        ----------
        amount : float
        what : str

        Raises
        ------
        InputError
        """
        if amount > self.cells:
            raise InputError(f"the results would hold {amount:.3g} numbers ({what}), over the limit of "
                             f"{self.cells:.3g}: ask for fewer replicates, values or targets "
                             f"({WORK_LIMIT_FLAG} raises the limit on the command line)")


#: The budget of the dashboard and of loaded configurations (the command line may raise it).
DEFAULT_BUDGET = WorkBudget()
