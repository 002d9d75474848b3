"""Dashboard users: the people who sign in to an account with email and password.

Public API: ``signup.sign_up`` (answers alike for every address) and ``signup.add_owner`` (an operator-opened
account's login), ``verification.complete`` (the emailed link: the address proved, the password chosen),
``signin.sign_in`` / ``signin.sign_out`` (throttled and audited), ``reset.request_reset`` /
``reset.reset_password`` (single-use emailed links), ``sessions`` (server-side sessions: open, current, end,
end all, the devices list) and ``acting.as_owner`` (the ``Owner``, the actor a signed-in owner is, so the
dashboard calls the same services as the API).
"""
