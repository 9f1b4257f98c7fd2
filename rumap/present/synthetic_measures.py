"""What each measure of a release against its original says, in plain words, with its formula.

One entry per key of :class:`rumap.risk.synthetic.SyntheticMeasures`: what it
measures, its formula, and what a committee should read from it. The pages and
reports draw :func:`measures_markdown`; ``tests/present/test_synthetic_measures.py``
checks every measure has its entry.
"""

from __future__ import annotations

from rumap._validation import assumes_valid

__all__ = ["MEASURE_WORDS", "measures_markdown"]

#: Measure -> (what it is, formula, what to read from it).
MEASURE_WORDS: dict[str, tuple[str, str, str]] = {
    "dcr_share": (
        "Of the released records, the share that lie nearer a record the generator was fitted on than any record "
        "it never saw (the holdout).",
        "mean over release records of 1[d(r, original) < d(r, holdout)], a tie counting 1/2",
        "About 0.5: released records are no nearer the fitted people than new people are. Towards 1: the release "
        "copies or nearly copies its training records."),
    "nndr": (
        "For each released record, its distance to the nearest original record over the distance to the second "
        "nearest; the median of those ratios.",
        "median over r of d1(r) / d2(r), 0 / 0 counted as 0",
        "Near 0: released records sit on single original records and point at them. Near 1: each lies among "
        "several originals and identifies none."),
    "membership_advantage": (
        "An intruder guesses that a person was in the file when a released record lies close to them (nearer than "
        "the median). The advantage is how much more often that guess is right for members than for non-members.",
        "P(guessed member | original) - P(guessed member | holdout)",
        "0: the release says nothing about who was in the file. Above 0.1 or so: membership itself is disclosed."),
    "repu": (
        "Combinations of the key variables that belong to one person in the original and to one record in the "
        "release (synthpop's replicated uniques).",
        "100 x #{keys unique in the original and in the release} / n_original",
        "The percentage of people an intruder could single out by matching the keys. Ideally near 0."),
    "disco": (
        "People whose key combination appears in the release with one value of the target, their own "
        "(synthpop's DiSCO: disclosive in synthetic, correct in original).",
        "100 x share of originals whose keys' release records all hold their own target value",
        "The percentage of people whose sensitive value an intruder learns correctly from the keys."),
    "pmse": (
        "How well a logistic regression on the variables tells released records from original ones (propensity "
        "score mean squared error, Snoke et al. 2018).",
        "mean of (p - c)^2 over the stacked files, c = n_release / N",
        "0: the files cannot be told apart on these variables. c(1 - c): they separate completely."),
    "s_pmse": (
        "The pMSE over its expected value when both files come from one distribution.",
        "pMSE / ((k - 1)(1 - c)^2 c / N), k the model's coefficients",
        "About 1: as alike as two samples of one population. Much above 1: the release differs in ways the model "
        "sees."),
    "linkage": (
        "Distance-based record linkage, row by row: the share of released records whose nearest original is their "
        "own (a tie among t counting 1/t).",
        "mean over i of 1[nearest original of release row i is original row i]",
        "For a masked file, the share re-identified. A synthetic file has no own record: near 1/n is expected."),
    "interval_disclosure": (
        "The share of original values inside an interval of 10% of the records' ranks around the released value.",
        "mean of 1[x_ij in rank interval around x'_ij]",
        "High: released values reveal the original ones within a narrow interval."),
    "common_utility": (
        "How well means, variances and correlations of the numeric columns are kept.",
        "1 - mean over the groups of min(1, |s' - s| / |s|)",
        "1: the statistics are unchanged; 0: they are lost."),
}


@assumes_valid
def measures_markdown() -> str:
    """A Markdown table of every measure: what it is, its formula, what to read from it.

    Returns
    -------
    str

    Examples
    --------
    >>> measures_markdown().splitlines()[0]
    '| measure | what it is | formula | what a committee reads from it |'
    """
    rows = ["| measure | what it is | formula | what a committee reads from it |", "|---|---|---|---|"]
    rows += [f"| `{name}` | {what} | `{formula}` | {read} |" for name, (what, formula, read) in MEASURE_WORDS.items()]
    return "\n".join(rows)
