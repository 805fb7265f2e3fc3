"""Benchmarks; run each module with `python -m bench.<name>` from the repository root."""
