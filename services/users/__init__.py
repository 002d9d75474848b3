"""Dashboard users: the people who sign in to an account with email and password.

Public API: ``signup.sign_up`` and ``signup.add_owner`` (open an account with its owner's login, or give an
operator-opened account one), ``signin.sign_in`` / ``signin.sign_out`` (throttled and audited),
``reset.request_reset`` / ``reset.reset_password`` (single-use emailed links), ``acting.owner_context`` (the
``AuthContext`` a signed-in owner acts with, so the dashboard calls the same services as the API) and
``acting.load_signed_in`` (a session's user, if the session is still valid).
"""
