"""The suppression list: addresses an account must not send to, and the bounce feedback that fills it.

Modules (the package imports none of them, so validation's planning can import ``lookup`` alone):
``normalise`` (the suppression key), ``lookup`` and ``answers`` (validation's side), ``entries`` and
``exports`` (the owner's list), ``sources`` (inbound endpoints), ``inbound`` (a notification received),
``sns`` (SNS signatures), ``providers`` (payloads), ``recording`` (into the list), ``rows`` (CSV/JSON rows).
"""
