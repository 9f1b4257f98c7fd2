"""User-supplied strings render as exactly themselves: no link, image, emphasis or heading."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from dashboard.markdown import plain, plain_list

RENDERER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
HOSTILE = [
    "![c](http://127.0.0.1:8655/c.png)",
    "[click](http://127.0.0.1:8655/)",
    "<http://127.0.0.1:8655/x>",
    "<img src=x onerror=alert(1)>",
    "# heading",
    "**bold** _it_ `code` ~~gone~~",
    ":red[alarm] :material/home: $x^2$",
    "income\n\n![c](http://127.0.0.1:8655/c.png)",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "> quote",
    "1. item",
    "- item",
    "=HYPERLINK(\"http://x\",\"y\")",
    "    indented code",
    "\tx",
    "  - item",
]
MARKUP = re.compile(r"<(?!/?p>)[a-z/]")  # any tag but the one paragraph


def _rendered_text(markdown: str) -> str:
    out = RENDERER.render(markdown).strip()
    assert out.startswith("<p>") and out.endswith("</p>"), out
    inner = out[3:-4]
    assert not MARKUP.search(inner), out
    return html.unescape(inner)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_name_renders_as_its_own_text(text):
    assert _rendered_text(plain(text)) == re.sub(r"[\r\n]+", " ", text).strip()


def test_streamlit_directives_are_escaped():
    # Streamlit's own syntax (colour and icon directives, math) starts with ':' or '$': both escaped
    out = plain(":red[x] $y$")
    assert ":" not in out.replace("\\:", "") and "$" not in out.replace("\\$", "")


def test_plain_list_escapes_each_and_joins():
    assert plain_list(["a*", "[b]"], " x ") == "a\\* x \\[b\\]"


@given(st.text(alphabet=st.characters(codec="ascii", exclude_characters="\x00"), min_size=1, max_size=60))
def test_any_ascii_text_renders_as_itself(text):
    expected = re.sub(r"[\r\n\x0b\x0c]+", " ", text).strip()
    if expected:
        assert _rendered_text(plain(text)) == expected
