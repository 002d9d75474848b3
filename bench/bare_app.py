"""A bare Flask endpoint for benchmark (c): the floor that gunicorn and Flask themselves cost."""

from __future__ import annotations

from flask import Flask, Response, jsonify, request

app = Flask(__name__)


@app.post("/validate")
def validate() -> Response:
    body = request.get_json()
    return jsonify({"email": body["email"], "isValid": True})
