"""``python -m verimail_webhooks listen --forward-to URL`` (see ``verimail_webhooks.listen``)."""

from __future__ import annotations

import argparse
import sys

from verimail_webhooks import listen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verimail_webhooks")
    commands = parser.add_subparsers(required=True, metavar="command")
    listen.add_parser(commands)
    args = parser.parse_args(argv)
    return int(args.command(args))


if __name__ == "__main__":
    sys.exit(main())
