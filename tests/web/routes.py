"""Every authenticated route of the app with the scope it needs (ids that never exist: 404 when allowed).

``test_the_registry_lists_every_authenticated_route`` fails when a route is added without being listed
here, so the scope matrix (``test_scopes.py``) always covers every route. ``PERMITTED`` is the exact
answer a key holding the route's scope gets for the matrix's request (body ``{"bogus": true}``).
"""

from __future__ import annotations

MISSING_ID = 999_999_999
MISSING_JOB = "job_000000000000000000000000"
MISSING_BATCH = "bat_000000000000000000000000"
MISSING_SUB_USER = "sub_000000000000000000000000"
MISSING_DOMAIN = "dom_000000000000000000000000"
MISSING_LISTENER = "lsn_00000000000000000000000000000000"
MISSING_LIST = "mon_000000000000000000000000"
MISSING_SOURCE = "src_000000000000000000000000"
MISSING_ADDRESS = "never-suppressed@example.com"

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
    ("GET", "/api/usage", "analytics:read"),
    ("POST", "/validate", "validate:write"),
    ("POST", "/validate/batch", "validate:write"),
    ("POST", "/validate/browser", "validate:write"),
    ("POST", "/validate/confirm", "validate:read"),
    ("GET", f"/batches/{MISSING_BATCH}/results", "validate:read"),
    ("POST", "/bulk/jobs", "bulk:*"),
    ("GET", f"/bulk/jobs/{MISSING_JOB}", "bulk:*"),
    ("POST", f"/bulk/jobs/{MISSING_JOB}/cancel", "bulk:*"),
    ("GET", f"/bulk/jobs/{MISSING_JOB}/download", "bulk:*"),
    ("POST", "/monitored-lists", "bulk:*"),
    ("GET", "/monitored-lists", "bulk:*"),
    ("GET", f"/monitored-lists/{MISSING_LIST}", "bulk:*"),
    ("PATCH", f"/monitored-lists/{MISSING_LIST}", "bulk:*"),
    ("DELETE", f"/monitored-lists/{MISSING_LIST}", "bulk:*"),
    ("GET", f"/monitored-lists/{MISSING_LIST}/runs/1/diff", "bulk:*"),
    ("POST", "/webhooks", "webhooks:write"),
    ("GET", "/webhooks", "webhooks:read"),
    ("GET", f"/webhooks/{MISSING_ID}", "webhooks:read"),
    ("PATCH", f"/webhooks/{MISSING_ID}", "webhooks:write"),
    ("DELETE", f"/webhooks/{MISSING_ID}", "webhooks:write"),
    ("GET", f"/webhooks/{MISSING_ID}/deliveries", "webhooks:read"),
    ("POST", f"/webhooks/{MISSING_ID}/deliveries/{MISSING_ID}/redeliver", "webhooks:write"),
    ("POST", f"/webhooks/{MISSING_ID}/rotate-secret", "webhooks:write"),
    ("POST", "/webhooks/test", "webhooks:write"),
    ("POST", "/webhooks/listeners", "webhooks:read"),
    ("GET", f"/webhooks/listeners/{MISSING_LISTENER}/events", "webhooks:read"),
    ("POST", f"/webhooks/listeners/{MISSING_LISTENER}/acknowledge", "webhooks:read"),
    ("DELETE", f"/webhooks/listeners/{MISSING_LISTENER}", "webhooks:read"),
    ("POST", "/api/sub-users", "resellers:write"),
    ("GET", "/api/sub-users", "resellers:read"),
    ("GET", f"/api/sub-users/{MISSING_SUB_USER}", "resellers:read"),
    ("PATCH", f"/api/sub-users/{MISSING_SUB_USER}", "resellers:write"),
    ("DELETE", f"/api/sub-users/{MISSING_SUB_USER}", "resellers:write"),
    ("GET", f"/api/sub-users/{MISSING_SUB_USER}/usage", "resellers:read"),
    ("GET", "/api/commissions", "resellers:read"),
    ("GET", "/api/white-label", "resellers:read"),
    ("PUT", "/api/white-label", "resellers:write"),
    ("POST", "/api/custom-domains", "resellers:write"),
    ("GET", "/api/custom-domains", "resellers:read"),
    ("GET", f"/api/custom-domains/{MISSING_DOMAIN}", "resellers:read"),
    ("DELETE", f"/api/custom-domains/{MISSING_DOMAIN}", "resellers:write"),
    ("POST", f"/api/custom-domains/{MISSING_DOMAIN}/verify", "resellers:write"),
    ("GET", "/suppression", "suppression:read"),
    ("POST", "/suppression", "suppression:write"),
    ("GET", f"/suppression/addresses/{MISSING_ADDRESS}", "suppression:read"),
    ("DELETE", f"/suppression/addresses/{MISSING_ADDRESS}", "suppression:write"),
    ("POST", "/suppression/import", "suppression:write"),
    ("GET", "/suppression/export", "suppression:read"),
    ("GET", "/suppression/sources", "suppression:read"),
    ("POST", "/suppression/sources", "suppression:write"),
    ("DELETE", f"/suppression/sources/{MISSING_SOURCE}", "suppression:write"),
)
# Routes a second scope also opens (the view then checks the exact scope of what it found).
ALTERNATIVES: dict[str, tuple[str, ...]] = {f"/batches/{MISSING_BATCH}/results": ("bulk:*",)}

PERMITTED: dict[tuple[str, str], int] = {
    ("POST", "/api/keys"): 400,  # name is required
    ("GET", "/api/keys"): 200,
    ("GET", f"/api/keys/{MISSING_ID}"): 404,
    ("PATCH", f"/api/keys/{MISSING_ID}"): 400,  # the body is checked before the id is looked up
    ("DELETE", f"/api/keys/{MISSING_ID}"): 404,
    ("POST", f"/api/keys/{MISSING_ID}/refresh"): 404,
    ("POST", f"/api/keys/{MISSING_ID}/reveal-secret"): 404,
    ("POST", "/api/keys/revoke-all"): 200,
    ("GET", "/api/audit-log"): 200,
    ("GET", "/api/usage"): 200,
    ("POST", "/validate"): 400,  # email is required
    ("POST", "/validate/batch"): 400,  # emails is required
    ("POST", "/validate/browser"): 403,  # for web pages: the publishable key only, never a secret one
    ("POST", "/validate/confirm"): 400,  # token is required
    ("GET", f"/batches/{MISSING_BATCH}/results"): 404,
    ("POST", "/bulk/jobs"): 400,  # an object is not a list of addresses
    ("GET", f"/bulk/jobs/{MISSING_JOB}"): 404,
    ("POST", f"/bulk/jobs/{MISSING_JOB}/cancel"): 404,
    ("GET", f"/bulk/jobs/{MISSING_JOB}/download"): 404,
    ("POST", "/monitored-lists"): 400,  # jobId is required
    ("GET", "/monitored-lists"): 200,
    ("GET", f"/monitored-lists/{MISSING_LIST}"): 404,
    ("PATCH", f"/monitored-lists/{MISSING_LIST}"): 400,  # the body is checked before the id is looked up
    ("DELETE", f"/monitored-lists/{MISSING_LIST}"): 404,
    ("GET", f"/monitored-lists/{MISSING_LIST}/runs/1/diff"): 404,
    ("POST", "/webhooks"): 400,  # url is required
    ("GET", "/webhooks"): 200,
    ("GET", f"/webhooks/{MISSING_ID}"): 404,
    ("PATCH", f"/webhooks/{MISSING_ID}"): 400,  # the body is checked before the id is looked up
    ("DELETE", f"/webhooks/{MISSING_ID}"): 404,
    ("GET", f"/webhooks/{MISSING_ID}/deliveries"): 404,
    ("POST", f"/webhooks/{MISSING_ID}/deliveries/{MISSING_ID}/redeliver"): 404,
    ("POST", f"/webhooks/{MISSING_ID}/rotate-secret"): 404,
    ("POST", "/webhooks/test"): 400,  # type is required
    ("POST", "/webhooks/listeners"): 400,  # bogus is no field of it
    ("GET", f"/webhooks/listeners/{MISSING_LISTENER}/events"): 404,
    ("POST", f"/webhooks/listeners/{MISSING_LISTENER}/acknowledge"): 400,  # the body first
    ("DELETE", f"/webhooks/listeners/{MISSING_LISTENER}"): 404,
    ("POST", "/api/sub-users"): 400,
    ("GET", "/api/sub-users"): 200,
    ("GET", f"/api/sub-users/{MISSING_SUB_USER}"): 404,
    ("PATCH", f"/api/sub-users/{MISSING_SUB_USER}"): 400,  # the body is checked before the id is looked up
    ("DELETE", f"/api/sub-users/{MISSING_SUB_USER}"): 404,
    ("GET", f"/api/sub-users/{MISSING_SUB_USER}/usage"): 404,
    ("GET", "/api/commissions"): 200,
    ("GET", "/api/white-label"): 200,
    ("PUT", "/api/white-label"): 400,  # enabled is required
    ("POST", "/api/custom-domains"): 400,  # hostname is required
    ("GET", "/api/custom-domains"): 200,
    ("GET", f"/api/custom-domains/{MISSING_DOMAIN}"): 404,
    ("DELETE", f"/api/custom-domains/{MISSING_DOMAIN}"): 404,
    ("POST", f"/api/custom-domains/{MISSING_DOMAIN}/verify"): 404,
    ("GET", "/suppression"): 200,
    ("POST", "/suppression"): 400,  # email is required
    ("GET", f"/suppression/addresses/{MISSING_ADDRESS}"): 404,
    ("DELETE", f"/suppression/addresses/{MISSING_ADDRESS}"): 404,
    ("POST", "/suppression/import"): 415,  # a CSV file, not JSON
    ("GET", "/suppression/export"): 200,
    ("GET", "/suppression/sources"): 200,
    ("POST", "/suppression/sources"): 400,  # kind and name are required
    ("DELETE", f"/suppression/sources/{MISSING_SOURCE}"): 404,
}
# Routes of the Enterprise Plus tier: every other plan is refused there whatever its scopes.
RESELLER_PREFIXES = ("/api/sub-users", "/api/commissions", "/api/white-label", "/api/custom-domains")
