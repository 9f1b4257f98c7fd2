"""Exceptions raised by rumap for bad input."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: a parameter, file, column or value that rumap cannot use.

    The message names the offending item (parameter, file, column or value) so
    that the command-line interface can print it as one line and the dashboard
    can show it in an error box.

    Parameters
    ----------
    message : str
        What is wrong, naming the parameter, file, column or value.
    """
