"""Validation from web pages: a publishable key, the pages it allows, and verdicts a server can trust.

Public API, by module:
- ``validation``: ``answer`` (``POST /validate/browser``): origin, throttle, the key's budget, the quota, a
  verdict within the time budget, its token
- ``verdicts``: what a form is told (``Verdict``, ``summarise``)
- ``tokens``: verdict tokens, issued with each answer and read back on confirmation
- ``confirmations``: ``confirm`` (``POST /validate/confirm``), each token once
- ``throttle``: the per-visitor and per-key minute windows of the browser endpoint
- ``budget``: the publishable key's own daily and monthly budget (``spend``, ``give_back``)
- ``errors``: what a caller may be refused
"""
