"""API keys: lifecycle, secrets, scopes, IP allowlists and the 90-day rotation policy.

Public API, by module:
- ``lifecycle``: issue, list, update, delete, refresh the secret, deactivate, revoke all
- ``secrets`` (generation and hashing), ``sealed`` (auto-rotated secrets sealed until revealed once),
  ``last_used`` (``lastUsedAt`` to the minute)
- ``scopes`` and ``allowlist``: what a key may do, and from where
- ``rotation`` (the beat sweeper), ``rotation_policy`` (spec 3.1's calendar), ``rotation_mail``; ``errors``
"""
