"""Benchmarks; run each as a module from the project root: ``.venv/bin/python -m bench.<name>``."""
