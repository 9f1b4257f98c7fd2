"""One glossary for every page and report: each term's definition, formula and other names.

The analytic map (Duncan, Keller-McNulty & Stokes 2001, Eq 1-10) speaks of a
snooper's *record*, *percentile* or *maximum* knowledge; the empirical map
(section 4, Eq 12) of *index* and *position* knowledge. They are the same
snoopers seen from two sides: record knowledge is index knowledge, and the
percentile, maximum and minimum states take an order statistic, i.e. position
knowledge. :data:`GLOSSARY` holds both vocabularies; the knowledge states come
from their registries (:data:`rumap.maps.analytic.STATES`,
:data:`rumap.maps.attacks.KNOWLEDGE`), whose ``empirical`` field links them, so
each state is defined in one place only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from rumap._validation import ListOf, StrOptions, validate_params
from rumap.maps.analytic import STATES
from rumap.maps.attacks import KNOWLEDGE
from rumap.result import RUMap

__all__ = ["Term", "GLOSSARY", "term", "both_names", "glossary_frame", "slide_words"]


@dataclass(frozen=True)
class Term:
    """One entry of the glossary.

    Parameters
    ----------
    name : str
        The term as the pages write it.
    definition : str
        What it means, in one sentence.
    formula : str
        Its formula in LaTeX ("" for none).
    synonyms : tuple of str
        Other terms of the glossary that name the same thing (e.g. index for record).
    source : str
        Where it comes from (an equation or section of Duncan et al. 2001).
    map : {"analytic", "empirical", "both"}
        Which map's vocabulary it belongs to.
    """

    name: str
    definition: str
    formula: str = ""
    synonyms: tuple[str, ...] = ()
    source: str = ""
    map: str = "both"

    def to_dict(self) -> dict:
        """The entry as a JSON-ready dictionary.

        Returns
        -------
        dict
        """
        return {"name": self.name, "definition": self.definition, "formula": self.formula,
                "synonyms": list(self.synonyms), "source": self.source, "map": self.map}


def _knowledge_terms() -> list[Term]:
    terms = []
    for name, s in STATES.items():
        terms.append(Term(name, f"A snooper who {s.description}.", s.latex, (s.empirical,), s.equation, "analytic"))
    for name, k in KNOWLEDGE.items():
        analytic = tuple(s for s, record in STATES.items() if record.empirical == name)
        terms.append(Term(name, f"A snooper who {k.description.split(':')[0]}.", k.latex, analytic,
                          "Section 4 (Eq 12)" if name != "corrected" else "Section 3.2", "empirical"))
    return terms


_GENERAL = [
    Term("snooper", "The intruder: whoever tries to learn a target's confidential value from the released data "
         "(Duncan et al.'s data snooper); what the intruder already knows is its knowledge state.", "", (),
         "Section 2"),
    Term("risk", "How well the snooper estimates the target: the inverse of its mean squared error.",
         r"R = \frac{1}{\mathrm{MSE}} = \left[\frac{1}{M}\sum_{m=1}^{M} (\tau - \hat\tau_m)^2\right]^{-1}",
         (), "Eq 12"),
    Term("utility", "How well the data user estimates the mean from the released data: the inverse of its "
         "variance.", r"U = \frac{n}{\sigma^2 + \lambda^2}", (), "Eq 1-4, Eq 13-14"),
    Term("efficiency", "The share of the utility of the unmasked data that remains.",
         r"\frac{U(\lambda^2)}{U(0)} = \frac{\sigma^2}{\sigma^2 + \lambda^2}", (), "Section 3"),
    Term("maximum tolerable risk", "The largest risk the agency accepts; the best parameter keeps the most "
         "utility below it. Said as an average error: the snooper's error must be at least e.",
         r"R_{\max} = \frac{1}{e^2}", ("tolerable average error",), "Section 3"),
    Term("tolerable average error", "The smallest root mean squared error of the snooper the agency accepts, "
         "in data units.", r"e = \frac{1}{\sqrt{R_{\max}}}", ("maximum tolerable risk",), "Section 4"),
    Term("target", "The original value the snooper wants: the maximum, the minimum, a sample percentile or a "
         "given record.", r"\tau = x_{(r)}", (), "Section 4"),
    Term("noise variance", "The variance of the noise added to each value: the masking parameter.",
         r"Y = x + e,\quad e \sim N(0, \lambda^2)", (), "Eq 11"),
    Term("replicates", "How many masked copies of the data the empirical map simulates per parameter value.",
         "M", (), "Section 4"),
]

#: The glossary: term -> :class:`Term` (the knowledge states of both maps, then the general terms).
GLOSSARY: dict[str, Term] = {t.name: t for t in [*_knowledge_terms(), *_GENERAL]}


@validate_params({"name": StrOptions(GLOSSARY)}, example=lambda: {"name": "record"})
def term(name: str) -> Term:
    """The glossary's entry for ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`GLOSSARY`.

    Returns
    -------
    Term

    Examples
    --------
    >>> from rumap.present.glossary import term
    >>> term("record").synonyms, term("position").synonyms
    (('index',), ('percentile', 'maximum', 'minimum'))
    """
    return GLOSSARY[name]


@validate_params({"name": StrOptions(GLOSSARY)}, example=lambda: {"name": "record"})
def both_names(name: str) -> str:
    """A term with the other map's name(s) for it, e.g. ``"record = index"``.

    Parameters
    ----------
    name : str
        A key of :data:`GLOSSARY`.

    Returns
    -------
    str
        The term alone when it has no other name.

    Examples
    --------
    >>> from rumap.present.glossary import both_names
    >>> both_names("record"), both_names("position"), both_names("risk")
    ('record = index', 'position = percentile / maximum / minimum', 'risk')
    """
    synonyms = GLOSSARY[name].synonyms
    return f"{name} = {' / '.join(synonyms)}" if synonyms else name


@validate_params({"map": StrOptions(("analytic", "empirical", "both", "all"))}, example=lambda: {"map": "all"})
def glossary_frame(map: str = "all") -> pd.DataFrame:  # noqa: A002 - the glossary's own field name
    """The glossary as a table: term, other names, definition, formula, source.

    Parameters
    ----------
    map : {"all", "analytic", "empirical", "both"}
        Only the terms of one map's vocabulary (and the shared ones), or all.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> from rumap.present.glossary import glossary_frame
    >>> glossary_frame("empirical").loc[lambda f: f["term"] == "index", "also called"].item()
    'record'
    """
    rows = [{"term": t.name, "also called": ", ".join(t.synonyms), "definition": t.definition,
             "formula": t.formula, "source": t.source}
            for t in GLOSSARY.values() if map == "all" or t.map in (map, "both")]
    return pd.DataFrame(rows, columns=["term", "also called", "definition", "formula", "source"])


def _example_maps() -> dict:
    from rumap.present.examples import small_analysis

    return {"maps": list(small_analysis().maps)}


@validate_params({"maps": ListOf(RUMap, "a list of maps", 1)}, example=_example_maps)
def slide_words(maps: list[RUMap]) -> list[tuple[str, str]]:
    """The words a slide of these maps uses, each with its meaning in plain language, for a committee.

    The intruder (the paper's snooper), each knowledge state of the curves
    shown (with the other map's name for it), and the risk and utility
    measures with their labels as the figure writes them.

    Parameters
    ----------
    maps : list of RUMap
        The curves on the slide.

    Returns
    -------
    list of (str, str)
        ``(word, meaning)`` pairs, in the order a reader meets them.

    Examples
    --------
    >>> from rumap.present.examples import small_analysis
    >>> from rumap.present.glossary import slide_words
    >>> [word for word, _ in slide_words(list(small_analysis().maps))][:3]
    ['snooper', 'record = index', 'population = mean']
    """
    words = [("snooper", GLOSSARY["snooper"].definition)]
    for name in dict.fromkeys(m.knowledge for m in maps if m.knowledge in GLOSSARY):
        words.append((both_names(name), GLOSSARY[name].definition))
    for label in dict.fromkeys(m.risk_label for m in maps):
        meaning = GLOSSARY["risk"].definition if label.startswith("R = 1 /") else "the risk measure of the map"
        words.append((f"risk ({label})", meaning))
    for label in dict.fromkeys(m.utility_label for m in maps):
        words.append((f"utility ({label})", _utility_meaning(label)))
    return words


def _utility_meaning(label: str) -> str:
    """A utility label (``U = 1 / MSE of the variance``) in words; higher is always better."""
    of = re.match(r"U = 1 / MSE of (the [\w ]+?)(?: \(|$)", label)
    if label.startswith("U = n /") or (of and of.group(1) == "the mean"):
        return GLOSSARY["utility"].definition
    if of:
        return (f"How well the data user estimates {of.group(1)} from the released data: the inverse of the mean "
                "squared error of that estimate. Higher is better.")
    if "mean(Y) - mean(x)" in label:
        return ("How close the released data's mean stays to the original's: the inverse of the squared masking "
                "error of the mean. Higher is better.")
    if "SSE/SST" in label:
        return "The share of the data's variance the masking keeps: 1 minus the information loss SSE/SST."
    return "The map's utility measure: higher is better."
