"""Reading queries: kinds, record ranges, COUNT conditions, and clear refusals."""

from __future__ import annotations

import pytest

from rumap.databases.queries import Query, parse_queries, parse_query
from rumap.errors import InputError


def test_records_numbers_ranges_and_star():
    assert parse_query("SUM:1,2,3", 9).records == (1, 2, 3)
    assert parse_query("mean: 4-6, 9", 9).records == (4, 5, 6, 9)
    assert parse_query("MAX:*", 4).records == (1, 2, 3, 4)
    assert parse_query("SUM:3,1,3", 4).records == (1, 3)


def test_count_condition_and_text_round_trip():
    q = parse_query("COUNT>=3.5:2-4", 5)
    assert (q.kind, q.operator, q.threshold) == ("COUNT", ">=", 3.5)
    assert parse_query(q.text, 5) == q
    assert parse_query("SUM:1,2,3,5", 5).text == "SUM:1-3,5"


@pytest.mark.parametrize("text", ["SUM", "SUM:", "AVG:1", "SUM:0", "SUM:10", "SUM:a", "SUM:3-1", "SUM>3:1",
                                  "COUNT>x:1", "COUNT>nan:1", "SUM:1-", "SUM:1,,2", ""])
def test_malformed_queries_are_refused(text):
    with pytest.raises(InputError):
        parse_query(text, 9)


def test_parse_queries_checks_query_objects_and_types():
    assert parse_queries([Query("SUM", (1, 2))], 2)[0].records == (1, 2)
    for bad in ([Query("SUM", (1, 5))], [], "SUM:1", [3]):
        with pytest.raises(InputError):
            parse_queries(bad, 2)


@pytest.mark.parametrize("text", ["SUM:1,\u0662", "SUM:1-\u00b2", "MEAN:\uff11-3", "COUNT>=\u0663:1-3", "SUM:-1",
                                  "COUNT>=nan:1-3", "COUNT>=1_0:1-3"])
def test_queries_are_read_in_ascii_digits_only(text):
    with pytest.raises(InputError, match="ASCII digits"):
        parse_query(text, 9)
