"""Every authenticated route of the foundation with the scope it needs (key id 999999999 never exists)."""

from __future__ import annotations

MISSING_ID = 999_999_999

ROUTES: tuple[tuple[str, str, str], ...] = (
    ("POST", "/api/keys", "keys:write"),
    ("GET", "/api/keys", "keys:write"),
    ("GET", f"/api/keys/{MISSING_ID}", "keys:write"),
    ("PATCH", f"/api/keys/{MISSING_ID}", "keys:write"),
    ("DELETE", f"/api/keys/{MISSING_ID}", "keys:write"),
    ("POST", f"/api/keys/{MISSING_ID}/refresh", "keys:write"),
    ("POST", f"/api/keys/{MISSING_ID}/reveal-secret", "keys:write"),
    ("POST", "/api/keys/revoke-all", "*:*"),
    ("GET", "/api/audit-log", "*:*"),
)
