"""The glossary: one entry per knowledge state of both maps, linked both ways, with formulas."""

from __future__ import annotations

import pytest

from rumap.errors import InputError
from rumap.maps.analytic import STATES
from rumap.maps.attacks import KNOWLEDGE
from rumap.present.glossary import GLOSSARY, both_names, glossary_frame, slide_words, term


def test_every_knowledge_state_of_both_maps_is_defined_with_a_formula():
    for name in [*STATES, *KNOWLEDGE]:
        assert GLOSSARY[name].definition and GLOSSARY[name].formula, name
    assert GLOSSARY["index"].formula == KNOWLEDGE["index"].latex  # taken from the registry, not restated
    assert GLOSSARY["record"].formula == STATES["record"].latex


def test_synonyms_link_the_two_vocabularies_both_ways():
    for name, entry in GLOSSARY.items():
        for other in entry.synonyms:
            assert name in GLOSSARY[other].synonyms, (name, other)
    assert term("record").synonyms == ("index",)
    assert set(term("position").synonyms) == {"percentile", "maximum", "minimum"}
    assert set(term("mean").synonyms) == {"population", "sample", "mean-target"}


def test_both_names_and_the_table():
    assert both_names("record") == "record = index"
    assert both_names("index") == "index = record"
    assert both_names("replicates") == "replicates"
    analytic = set(glossary_frame("analytic")["term"])
    empirical = set(glossary_frame("empirical")["term"])
    assert set(STATES) <= analytic and not set(KNOWLEDGE) & analytic
    assert set(KNOWLEDGE) <= empirical and "risk" in empirical and "risk" in analytic
    assert len(glossary_frame()) == len(GLOSSARY)


@pytest.mark.parametrize("name", list(GLOSSARY))
def test_formulas_have_balanced_braces(name):
    formula = GLOSSARY[name].formula
    depth = 0
    for char in formula.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, formula
    assert depth == 0, formula


def test_unknown_term_is_refused():
    with pytest.raises(InputError, match="name must be one of"):
        term("no-such-term")


@pytest.mark.parametrize(("label", "meaning"), [
    ("U = 1 / MSE of the mean (Eq 14)", "estimates the mean"), ("U = n / (σ² + λ²)", "estimates the mean"),
    ("U = 1 / MSE of the regression slopes", "estimates the regression slopes"),
    ("U = 1 / E(mean(Y) - mean(x))^2", "masking error of the mean"), ("U = 1 - SSE/SST", "1 minus the information loss")])
def test_a_slides_words_explain_its_measures_and_knowledge(label, meaning):
    from dataclasses import replace

    from rumap.present.examples import small_analysis

    first = small_analysis().maps[0]
    words = dict(slide_words([replace(first, utility_label=label), first]))
    assert meaning in words[f"utility ({label})"]
    assert "intruder" in words["snooper"] and words["record = index"] == GLOSSARY["record"].definition
    # snooper, one knowledge state, one risk measure, and each distinct utility label once
    assert len(words) == 4 + (label != first.utility_label)
