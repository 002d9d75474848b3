"""Flask's signed-cookie sessions, opened without building the cookie signer when there is no cookie.

The session cookie's path is ``/dashboard``, so no API request carries one; Flask still built an
itsdangerous signer on every request to find that out (measured: a fortieth of a quick validation's CPU).
Same sessions, same cookies: only the empty case skips the signer.
"""

from __future__ import annotations

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface


class CookieSessions(SecureCookieSessionInterface):
    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()  # what Flask answers for a missing cookie, minus the signer
        return super().open_session(app, request)
