"""The suppression list through the API: paged newest first, added and removed by hand, imported and
exported as CSV; each account and each mode sees only its own list."""

from __future__ import annotations

import csv
import io

from flask.testing import FlaskClient

from tests.fixtures.db import Persona, add_key, open_twins


def add(client: FlaskClient, persona: Persona, email: str) -> int:
    return client.post("/suppression", json={"email": email}, headers=persona.headers).status_code


def test_adding_twice_keeps_the_first_evidence_and_pages_run_newest_first(
    client: FlaskClient, owner: Persona
) -> None:
    statuses = [add(client, owner, f"user{n}@example.com") for n in range(5)] + [
        add(client, owner, "user0@example.com")
    ]

    first = client.get("/suppression?limit=2", headers=owner.headers).get_json()
    after = first["data"][-1]["id"]
    second = client.get(f"/suppression?limit=2&startingAfter={after}", headers=owner.headers).get_json()
    last = client.get(f"/suppression?limit=2&startingAfter={second['data'][-1]['id']}", headers=owner.headers)

    assert statuses == [201] * 5 + [200]
    assert [row["email"] for row in first["data"] + second["data"]] == [
        f"user{n}@example.com" for n in (4, 3, 2, 1)
    ]
    assert (first["hasMore"], last.get_json()["hasMore"], len(last.get_json()["data"])) == (True, False, 1)
    assert first["data"][0]["kind"] == "manual"
    assert first["data"][0]["source"] == "api"


def test_removing_an_address_keeps_its_history(client: FlaskClient, owner: Persona) -> None:
    add(client, owner, "back@example.com")

    removed = client.delete("/suppression/addresses/back@example.com", headers=owner.headers)
    again = client.delete("/suppression/addresses/back@example.com", headers=owner.headers)
    read = client.get("/suppression/addresses/back@example.com", headers=owner.headers).get_json()

    assert removed.get_json() == {"address": "back@example.com", "deleted": True, "livemode": True}
    assert again.status_code == 404
    assert read["suppressed"] is None
    assert [event["kind"] for event in read["history"]] == ["manual"]


def test_an_address_that_is_not_one_is_refused_naming_the_field(client: FlaskClient, owner: Persona) -> None:
    answer = client.post("/suppression", json={"email": "not an address"}, headers=owner.headers)

    assert answer.status_code == 400
    assert answer.get_json()["field"] == "email"
    assert "not an email address" in answer.get_json()["message"]


def test_import_then_export_round_trips_and_quotes_formula_cells(client: FlaskClient, owner: Persona) -> None:
    text = "email,kind,diagnosticCode\nann@example.com,hard,=HYPERLINK(1)\nbob@example.com,,\nbroken,,\n"

    imported = client.post("/suppression/import", data=text, content_type="text/csv", headers=owner.headers)
    exported = client.get("/suppression/export", headers=owner.headers)

    assert imported.status_code == 200, imported.get_json()
    assert imported.get_json()["recorded"] == {"hard": 1, "manual": 1}
    assert (imported.get_json()["refusedCount"], imported.get_json()["refused"][0]["row"]) == (1, 4)
    assert exported.headers["Content-Disposition"] == 'attachment; filename="suppression.csv"'
    rows = list(csv.DictReader(io.StringIO(exported.get_data(as_text=True))))
    assert [(row["email"], row["kind"], row["source"]) for row in rows] == [
        ("ann@example.com", "hard", "import"),
        ("bob@example.com", "manual", "import"),
    ]
    assert rows[0]["diagnosticCode"] == "'=HYPERLINK(1)"


def test_an_import_without_an_email_column_is_a_400_naming_the_body(
    client: FlaskClient, owner: Persona
) -> None:
    answer = client.post(
        "/suppression/import", data="address\nx@y.z\n", content_type="text/csv", headers=owner.headers
    )

    assert (answer.status_code, answer.get_json()["error"]["code"]) == (400, "INBOUND_PAYLOAD_INVALID")


def test_each_account_sees_only_its_own_list(client: FlaskClient, owner: Persona, outsider: Persona) -> None:
    add(client, owner, "private@example.com")

    assert client.get("/suppression", headers=outsider.headers).get_json()["data"] == []
    assert (
        client.get("/suppression/addresses/private@example.com", headers=outsider.headers).status_code == 404
    )
    assert (
        client.delete("/suppression/addresses/private@example.com", headers=outsider.headers).status_code
        == 404
    )
    assert client.get("/suppression/export", headers=outsider.headers).get_data(as_text=True).count("\n") == 1


def test_test_mode_keeps_its_own_list(client: FlaskClient, database_url: str) -> None:
    live, test = open_twins()
    add(client, test, "sandbox@example.com")

    live_page = client.get("/suppression", headers=live.headers).get_json()
    test_page = client.get("/suppression", headers=test.headers).get_json()

    assert live_page["data"] == []
    assert ([row["email"] for row in test_page["data"]], test_page["livemode"]) == (
        ["sandbox@example.com"],
        False,
    )
    assert client.get("/suppression/addresses/sandbox@example.com", headers=live.headers).status_code == 404


def test_reading_needs_suppression_read_and_changing_suppression_write(
    client: FlaskClient, owner: Persona
) -> None:
    reader = add_key(owner.account_id, "List reader", ("suppression:read",))

    assert client.get("/suppression", headers=reader.headers).status_code == 200
    refused = client.post("/suppression", json={"email": "a@example.com"}, headers=reader.headers)
    assert (refused.status_code, refused.get_json()["error"]["requiredScope"]) == (403, "suppression:write")
