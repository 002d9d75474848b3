"""``python -m launch`` (what ``bin/run`` runs): the release step, then every process type under honcho;
with ``--lab`` against a mail lab started here. It prints where everything is once it all answers and
stops with honcho (Ctrl-C stops them all)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from types import FrameType

from launch.mail_folder import FOLDER, mail_folder
from launch.quiet import quiet_start
from launch.ready import Addresses, banner, wait_until_ready
from maillab import MailLab
from maillab.world import bench_world, standard_world
from settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PROCESSES = ("web", "worker", "webhooks", "probes", "beat", "flower")
LAB_BENCH_DOMAINS = 200  # as ``python -m maillab``: bench-000.test ... with user00-user49
DESCRIPTION = """\
Run the whole service: migrations (the Procfile's release step), then web, worker, webhooks, probes, beat
and Flower under honcho, in the foreground. Once everything answers it prints where the API, the dashboard
and Flower are and what to run next. Ctrl-C stops everything."""
LAB_HELP = (
    "against the mail lab (our own small internet on loopback, see README): *.test addresses, no network "
    "needed; sets DNS_NAMESERVERS, SMTP_PROBE_PORT and ALLOW_TEST_DOMAINS=true for every process"
)
CHOOSE_STEP = "read -rsp 'Choose a dashboard password (10 characters or more): ' PASSWORD; echo"
# The account's JSON is printed whole (its id, live and test keys, shown only this once) and its secret
# keys kept in the shell; the README's quick start shows the same lines (tests/launch/test_quick_start.py).
ACCOUNT_STEP = (
    "ACCOUNT=$(printf '%s\\n' \"$PASSWORD\" | .venv/bin/flask --app web accounts create "
    '--email you@example.com --tier scale --password-stdin); echo "$ACCOUNT"'
)
KEPT = (("KEY", "secretKey"), ("TEST_KEY", "testSecretKey"))
KEEP_STEP = (
    "{variable}=$(printf '%s' \"$ACCOUNT\" | .venv/bin/python -c "
    "'import json, sys; print(json.load(sys.stdin)[\"{field}\"])')"
)
CURL_STEP = (
    "curl -s -H \"X-API-Key: $KEY\" -H 'Content-Type: application/json' "
    '-d \'{{"email": "{address}"}}\' {api}/validate'
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bin/run", description=DESCRIPTION)
    parser.add_argument("--lab", action="store_true", help=LAB_HELP)
    args = parser.parse_args(argv)
    env = dict(os.environ)
    with ExitStack() as stack:
        if args.lab:
            lab = stack.enter_context(MailLab(standard_world().merged(bench_world(LAB_BENCH_DOMAINS))))
            env |= {**lab.env(), "ALLOW_TEST_DOMAINS": "true"}
            print(f"mail lab ready: DNS at {lab.nameserver}, SMTP on port {lab.smtp_port}", flush=True)
        mail = _mail_to_folder(env, stack, lab=args.lab)
        env |= quiet_start(env)
        try:
            _release(env)
        except KeyboardInterrupt:  # Ctrl-C during the migrations: nothing else was started yet
            return 130
        return _serve(env, lab=args.lab, mail=mail)


def _mail_to_folder(env: dict[str, str], stack: ExitStack, *, lab: bool) -> Path | None:
    """With ``--lab``, or when no ``MAIL_SMTP_URL`` names a relay, the service's emails go to ``FOLDER``
    (the default relay, port 1025 on loopback, is usually nobody's, and a sign-up link would be lost)."""
    if not lab and "MAIL_SMTP_URL" in env:
        return None
    env["MAIL_SMTP_URL"] = stack.enter_context(mail_folder())
    print(f"emails the service sends (sign-up links, key warnings) are written to {FOLDER}", flush=True)
    return FOLDER


def _release(env: dict[str, str]) -> None:
    """The Procfile's release step (migrations), alone and first: honcho stops every process when one
    exits, so it cannot run beside them."""
    release = next(
        line.partition(":")[2].strip()
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line.startswith("release:")
    )
    subprocess.run(["honcho", "run", "-f", "Procfile", "sh", "-c", release], cwd=ROOT, env=env, check=True)


def _serve(env: dict[str, str], *, lab: bool, mail: Path | None) -> int:
    """honcho in the foreground until it stops; the ready banner in between."""
    settings = Settings.from_env(env)
    # honcho hands each process a PORT counted up from its base; web comes first, so it gets PORT.
    command = ["honcho", "start", "-f", "Procfile", "--port", str(settings.port), *PROCESSES]
    # Its own process group: a terminal's Ctrl-C reaches this process only, which passes it on once,
    # so honcho stops its processes once (and a test's signal to this PID stops them too).
    honcho = subprocess.Popen(command, cwd=ROOT, env=env, process_group=0)
    _forward_signals(honcho)
    addresses = Addresses.of(settings, env)
    missing = wait_until_ready(honcho, addresses, settings)
    if honcho.poll() is None:
        print(_announcement(addresses, missing, lab=lab, mail=mail), flush=True)
    return honcho.wait()


def _forward_signals(honcho: subprocess.Popen[bytes]) -> None:
    def forward(signum: int, _frame: FrameType | None) -> None:
        if honcho.poll() is None:
            honcho.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, forward)


def _announcement(addresses: Addresses, missing: list[str], *, lab: bool, mail: Path | None) -> str:
    if missing:
        return f"not answering yet after a while: {', '.join(missing)} (see the lines above)"
    address = "alice@mailbox.test" if lab else "someone@gmail.com"
    keep = [KEEP_STEP.format(variable=name, field=field) for name, field in KEPT]
    steps = [CHOOSE_STEP, ACCOUNT_STEP, *keep, CURL_STEP.format(address=address, api=addresses.api)]
    return banner(addresses, steps, mail=mail)


if __name__ == "__main__":
    sys.exit(main())
