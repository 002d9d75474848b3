"""Celery tasks, one module per capability: thin, idempotent wrappers (ids in, a service call inside).

Each module declares the beat entries of its sweepers as ``BEAT``; ``scheduler.schedule`` gathers them.
"""
