"""Streamlit helpers shared by the dashboard's pages (session state, widgets, error display).

This package imports streamlit; the computations it shows live in ``rumap``.
"""
