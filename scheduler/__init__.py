"""Celery beat schedule: time-based state lives in Postgres columns; beat only wakes the sweepers."""
