"""Command line: ``python -m verifier ADDRESS... [--quick] [--nameserver HOST:PORT] [--json]``.

Configuration comes from the environment like the service's (``verifier/config.py``: ``SMTP_PROBE_PORT``,
``SMTP_HELO_HOST``, ...); ``--nameserver`` overrides ``DNS_NAMESERVERS``. Exit status: 0 when every address
is valid (warnings included), 1 when at least one is invalid, 2 on a usage or configuration error.

Each address is trimmed of the blanks around it before it is judged, as in every entry point of the
service; results come in argument order, ``input`` echoing the argument exactly and ``email`` the trimmed
address in lowercase (``--json`` adds ``index``, the argument's 0-based position).

Against the offline mail lab: ``python -m maillab`` prints ``DNS_NAMESERVERS=... SMTP_PROBE_PORT=...``;
with those in the environment, ``python -m verifier --test-domains alice@mailbox.test zed@mailbox.test``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence

from verifier.config import EngineConfig, EngineConfigError, parse_nameservers
from verifier.engine import Engine, Options
from verifier.results import CheckResult, ValidationResult
from verifier.syntax import SyntaxPolicy

EXIT_ALL_VALID, EXIT_SOME_INVALID, EXIT_USAGE = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        engine = _engine(args)
    except EngineConfigError as error:
        print(f"configuration error: {error}", file=sys.stderr)
        return EXIT_USAGE
    options = Options(quick_mode=args.quick, skip_catch_all=args.skip_catch_all)
    results = engine.verify_many(args.addresses, options)
    for index, result in enumerate(results):
        print(_json(index, result) if args.json else _human(result))
    return EXIT_ALL_VALID if all(result.is_valid for result in results) else EXIT_SOME_INVALID


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m verifier", description="Verify email addresses.")
    parser.add_argument("addresses", nargs="+", metavar="ADDRESS")
    parser.add_argument("--quick", action="store_true", help="skip the SMTP and catch-all checks")
    parser.add_argument("--skip-catch-all", action="store_true", help="skip the catch-all check")
    parser.add_argument(
        "--nameserver", action="append", metavar="HOST:PORT", help="DNS server to ask (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON result (spec 2.1) per line")
    parser.add_argument(
        "--test-domains", action="store_true", help="accept *.test addresses (the mail lab's zones)"
    )
    return parser


def _engine(args: argparse.Namespace) -> Engine:
    config = EngineConfig.from_env()
    if args.nameserver:
        config = dataclasses.replace(config, dns_nameservers=parse_nameservers(",".join(args.nameserver)))
    return Engine(config, policy=SyntaxPolicy(test_domains=args.test_domains))


def _json(index: int, result: ValidationResult) -> str:
    """The spec 2.1 result with ``index``, as in a batch's results: the argument's 0-based position."""
    return json.dumps({"index": index, **result.to_dict()}, ensure_ascii=False)


def _human(result: ValidationResult) -> str:
    lines = [f"{result.email}: {result.severity.value}, score {result.score}"]
    if result.input != result.email:  # quoted, so the trimmed blanks and the case as typed can be seen
        lines.append(f"  input: {json.dumps(result.input, ensure_ascii=True)}")
    lines += [_check_line(check) for check in result.checks.values()]
    lines += [f"  advice: {advice}" for advice in result.recommendations]
    return "\n".join(lines)


def _check_line(check: CheckResult) -> str:
    """``[pass]``, ``[FAIL]``, or the status of a check that was skipped or could not conclude: neither of
    those is a failure, and a terminal reader should not take it for one."""
    mark = "pass" if check.passed else "FAIL" if check.status in (None, "fail") else check.status
    return f"  [{mark}] {check.check:<16} {check.message}"


if __name__ == "__main__":
    sys.exit(main())
