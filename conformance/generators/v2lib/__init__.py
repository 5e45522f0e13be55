"""Helpers of conformance/generators/v2_corpus.py, written from spec/ alone (v2.md, v1.md)."""
