"""User-supplied strings shown as plain text in Streamlit's Markdown.

Streamlit renders labels, captions, messages and toasts as Markdown, so a
file, column or map name such as ``![c](http://host/c.png)`` would make the
browser fetch an image, ``[x](http://host)`` would become a link and
``:red[...]`` or ``$...$`` would be styled. :func:`plain` escapes every ASCII
punctuation character (CommonMark's backslash escapes, which Streamlit's
renderer honours, including its ``:directive:`` and ``$math$`` syntax) and
folds line breaks and trims the ends, so the text shows as written, on one line.
"""

from __future__ import annotations

import re
import string

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c]+")


def plain(text: object) -> str:
    """``text`` as Markdown that renders as exactly that text: no link, image, styling or heading.

    Parameters
    ----------
    text : object
        A user-supplied string (or anything, shown through ``str``).

    Returns
    -------
    str

    Examples
    --------
    >>> plain("![c](http://127.0.0.1:8655/c.png)")
    '\\\\!\\\\[c\\\\]\\\\(http\\\\:\\\\/\\\\/127\\\\.0\\\\.0\\\\.1\\\\:8655\\\\/c\\\\.png\\\\)'
    >>> plain("income")
    'income'
    """
    one_line = _LINE_BREAKS.sub(" ", str(text)).strip()  # leading blanks would start a code block
    return _PUNCTUATION.sub(r"\\\1", one_line)


def plain_list(texts, separator: str = ", ") -> str:
    """Several user-supplied strings, each shown as plain text, joined by ``separator``.

    Parameters
    ----------
    texts : iterable of object
    separator : str

    Returns
    -------
    str

    Examples
    --------
    >>> plain_list(["income", "*age*"])
    'income, \\\\*age\\\\*'
    """
    return separator.join(plain(t) for t in texts)
