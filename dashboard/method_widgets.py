"""The widgets of a masking method, drawn from its record (:data:`rumap.maps.methods.METHODS`).

A page asks :func:`method_settings` for the method, its grid and its options:
the method selector lists every registered method, the grid's widgets read the
grid parameter's bounds from :data:`rumap.PARAMETERS`, and each option's widget
is the one its record describes. No method is named here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from dashboard.widgets import number, remembered, selectbox
from rumap.maps.methods import METHODS, GridParameter, MethodOption


def method_settings(x: np.ndarray, prefix: str, attacked: int = 0,
                    offered: list[str] | None = None, also: Mapping[str, str] | None = None) -> tuple[str, list, dict]:
    """The masking method, its grid of parameter values and its options, from the method's record.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        The data (for option defaults read from them and widgets shown only for several columns).
    prefix : str
        The page's prefix of session-state keys, such as ``"em_"``.
    attacked : int, default 0
        The attacked column: what an option that follows it takes.
    offered : list of str, optional
        The methods to offer (default: every registered method).
    also : mapping, optional
        Other choices offered after them (name -> description), whose widgets the page draws itself:
        for one of them, no grid and no options are drawn.

    Returns
    -------
    method : str
    values : list
        The grid parameter's values (empty for a choice of ``also``).
    options : dict
        The method's options (``SimulationConfig.method_options``).
    """
    names = list(METHODS) if offered is None else offered
    words = {**{key: METHODS[key].description for key in names}, **dict(also or {})}
    name = selectbox("Method", list(words), f"{prefix}method", "noise",
                     help="; ".join(f"{key}: {text}" for key, text in words.items()))
    if name not in METHODS:
        return name, [], {}
    method = METHODS[name]
    chooses_grid = {key for grid in method.grids for key in grid.implies}
    options: dict = {}
    for option in method.options:
        if option.name in chooses_grid:
            options[option.name] = _option_widget(option, x, prefix, attacked)
    values = grid_values(method.grid(options), prefix)
    toggles: dict[str, bool] = {}
    for option in method.options:
        if option.name in chooses_grid:
            continue
        if option.toggle:
            if option.toggle not in toggles:
                toggle = method.toggles[option.toggle]
                toggles[option.toggle] = bool(remembered(st.checkbox, toggle.label, prefix + toggle.key, False,
                                                         help=toggle.help or None))
            if not toggles[option.toggle]:
                continue
        if option.follows == "target_column":
            options[option.name] = int(attacked)
        elif option.widget is not None and x.shape[1] >= option.widget.min_columns:
            options[option.name] = _option_widget(option, x, prefix, attacked)
    return name, values, options


def grid_values(grid: GridParameter, prefix: str) -> list:
    """The grid of ``grid``'s values: smallest, largest (and how many, unless integers), within its bounds.

    The inputs' help says what the parameter is and its units.

    Parameters
    ----------
    grid : GridParameter
    prefix : str
        The page's prefix of session-state keys.

    Returns
    -------
    list
    """
    start_key, stop_key, *num_key = (prefix + key for key in grid.widget_keys)
    low, high, count = grid.default_grid
    words = f"{grid.interval.description}, in {grid.units}"
    start = number(grid.entry, f"smallest {grid.label}", start_key, low, help=words)
    stop = number(grid.entry, f"largest {grid.label}", stop_key, high, help=words)
    if grid.integer:
        return grid.values(int(start), int(stop))
    num = number("grid_num", grid.count_label or f"number of {grid.label} values", num_key[0], count)
    return grid.values(start, stop, int(num))


def _option_widget(option: MethodOption, x: np.ndarray, prefix: str, attacked: int) -> Any:
    widget = option.widget
    default = option.default if widget.default is None else widget.default
    if callable(default):
        default = default(x, attacked)
    key, help_text = prefix + widget.key, widget.help or None
    if widget.kind == "checkbox":
        return remembered(st.checkbox, widget.label, key, bool(default), help=help_text)
    if widget.kind == "select":
        return selectbox(widget.label, list(option.check.options), key, default, help=help_text)
    return number(option.entry, widget.label, key, default, **({"help": help_text} if help_text else {}))


def data_defaults(x: np.ndarray, prefix: str, attacked: int = 0) -> dict[str, Any]:
    """The widgets whose default is read from the data, at their value for ``x``: what new data reset.

    Parameters
    ----------
    x : ndarray, shape (n, p)
    prefix : str
        The page's prefix of session-state keys.
    attacked : int, default 0

    Returns
    -------
    dict
        Session-state key -> value.
    """
    return {prefix + o.widget.key: o.widget.default(x, attacked) for m in METHODS.values() for o in m.options
            if o.widget is not None and callable(o.widget.default)}

