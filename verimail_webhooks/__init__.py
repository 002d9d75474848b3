"""The webhook helper's old import path, kept so existing receivers keep working: it lives in the official
client now, as ``verimail.webhooks`` (``pip install ./clients/python``). New code imports from there."""

from verimail.webhooks import *  # noqa: F403 (a re-export of the whole public API, which __all__ names)
from verimail.webhooks import __all__ as __all__
