"""Declarative parameter constraints shared by the core, the CLI and the dashboard.

One table, :data:`PARAMETERS`, says which values each named parameter may take;
the dashboard reads it for its widgets' bounds, so a limit is written once.
A public function states its constraints with :func:`validate_params`, which
checks the arguments of every call at the public boundary and hands the
function converted values (``int``/``float`` scalars, float arrays, resolved
column names). The private kernels it calls assume valid input and check
nothing again.

Declaring the constraints of a public function
----------------------------------------------
1. Decorate the function; keys are parameter names, values constraints::

       @validate_params(
           {"data": DataMatrix(min_rows=2), "lambda2": "lambda2", "method": StrOptions(METHODS), "seed": SEED},
           example=lambda: {"data": [[1.0, 2.0], [3.0, 5.0]], "lambda2": 0.5},
       )
       def mask(data, lambda2, method="plain", seed=None):
           return _mask(data, lambda2, METHODS[method], np.random.default_rng(seed))

2. A constraint is one of

   - a string: the :data:`PARAMETERS` entry of that name, an :class:`Interval`
     (add an entry there for a new bounded parameter: an :class:`Interval` is
     built only in that table, and a bound is never written anywhere else;
     ``NumberArray(PARAMETERS[name])`` and ``Grid(name)`` hold arrays of one);
   - :class:`StrOptions` (one of a set of strings),
     :class:`Boolean`, :class:`InstanceOf` (a type, or ``SomeClass`` itself),
     :class:`Labels` (a list of codes: text or integers), :class:`BooleanArray` (a mask),
     ``None`` (the value None), :data:`SEED` (a seed or a generator);
   - :class:`DataMatrix` (numbers: an array or a DataFrame), :class:`Table` (any
     table, as a DataFrame), :class:`Columns` (names or positions of columns of
     another parameter), :class:`ColumnIndex` (one column position);
   - a list: any of its members, e.g. ``[None, "interval_percent"]``.

   Constraints are checked in the order of the dict. One that uses another
   parameter's checked value (``DataMatrix(columns=..., masked_of=...)``,
   ``ColumnIndex(of=...)``) comes after it; the decorator refuses another order.
   Checks that relate parameters in other ways stay in the function's body.
3. ``example`` returns valid keyword arguments, a fresh dict at each call. The
   common test (``tests/test_validation_common.py``) calls the function with
   it, then with each constrained parameter replaced by each invalid value its
   constraint makes (:meth:`Constraint.invalid_values`), and expects an
   :class:`~rumap.errors.InputError` whose message names the parameter. A
   decorated function without an example fails that test.
4. A public building block that takes values its caller has already checked
   (as the simulation engine's do) is marked :func:`assumes_valid`. In a module
   that uses :func:`validate_params`, the common test requires every public
   function to be validated or so marked.
5. A frozen dataclass is decorated the same way, above ``@dataclass``: its fields
   are checked before ``__post_init__``, which keeps the checks that relate
   fields to each other.
6. Converting a module: each ``check_scalar(name, value)`` becomes a dict entry,
   each hand-written "must be one of" a :class:`StrOptions`, each data-matrix
   or column check a :class:`DataMatrix`, :class:`Table` or :class:`Columns`;
   the body drops those checks (a :class:`DataMatrix` value arrives as a float
   array of the input's shape, or ``(n, q)`` for chosen columns), and so do the
   kernels. Add the new functions to ``KNOWN`` in the common test.

Messages name the parameter, never a command-line flag: the command-line
interface and the dashboard show them as they are.

The package: :mod:`~rumap._validation.constraints` (the table, scalar
constraints, choices and alternatives), :mod:`~rumap._validation.data` (numeric
matrices, tables, columns) and :mod:`~rumap._validation.registry` (the
decorator and the registries). Import every name from ``rumap._validation``;
the checks of a release step's parameters, from a plan file, are in
:mod:`~rumap._validation.steps`.
"""

from rumap._validation.constraints import (
    PARAMETERS,
    SEED,
    AnyOf,
    Arguments,
    Boolean,
    BooleanArray,
    Constraint,
    Grid,
    InstanceOf,
    Interval,
    Labels,
    ListOf,
    NumberArray,
    StrOptions,
    check_array,
    check_scalar,
    make_constraint,
)
from rumap._validation.data import (
    MAX_MAGNITUDE,
    ColumnIndex,
    Columns,
    DataMatrix,
    Table,
    check_column_index,
    check_magnitude,
    check_varies,
    column_names,
    frame_matrix,
    resolve_columns,
)
from rumap._validation.numbers import parse_integer, parse_number
from rumap._validation.registry import ASSUMES_VALID, REGISTRY, Validated, assumes_valid, validate_params
from rumap._validation.steps import JsonBoolean, StepName, check_parameter

__all__ = ["Interval", "Grid", "NumberArray", "PARAMETERS", "check_scalar", "check_array", "Constraint", "StrOptions",
           "Boolean", "BooleanArray", "InstanceOf", "Labels", "ListOf", "AnyOf", "DataMatrix", "Table", "Columns", "ColumnIndex", "SEED", "Arguments",
           "Validated", "REGISTRY", "ASSUMES_VALID", "validate_params", "assumes_valid", "make_constraint",
           "column_names", "resolve_columns", "check_column_index", "frame_matrix", "check_magnitude", "check_varies", "MAX_MAGNITUDE",
           "parse_number", "parse_integer", "StepName", "JsonBoolean", "check_parameter"]
