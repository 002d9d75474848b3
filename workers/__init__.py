"""The Celery application: ``celery --app workers ...`` finds ``workers.app``."""

from workers.celery_app import app

__all__ = ["app"]
