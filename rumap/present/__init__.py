"""Presentation: figures, plain-language statements, the HTML report, reproducing commands and worked examples."""
