"""The fault benchmark (bench/faults.py) in its smallest form: the fault-free scenario on a small list, on
a Postgres cluster and a ``redis-server`` it starts itself, read as its table is read."""

from __future__ import annotations

from collections import Counter

import pytest

from bench import fault_load, faults
from maillab import MailLab
from maillab.world import bench_world

SMALL = ["--scenarios", "none", "--list", "200", "--batches", "2", "--batch-size", "10", "--domains", "20"]


@pytest.mark.timeout(300)
def test_the_fault_free_scenario_finishes_a_list_and_its_batches_exactly_once() -> None:
    args = faults.parse(SMALL)
    with MailLab(bench_world(args.domains, servers=args.domains), latency=0.01) as lab:
        figures, verdicts = faults.run(lab, faults.FAULTS["none"], args, None)

    assert figures.list_seconds is not None
    books = figures.books
    assert (books.jobs, books.unfinished, books.lost, books.doubled) == (3, 0, 0, 0)
    assert books.charges_exact
    assert books.events == Counter({1: 3})  # one batch.completed for the list and each batch
    assert figures.batches == "2 x 200"  # both clients answered with their results
    real = sum(email.startswith("user") for email in fault_load.the_list(args.list, args.domains))
    assert Counter(verdicts.values()) == Counter({"valid": real, "invalid": args.list - real})
    row = figures.markdown(figures.list_seconds)
    assert row.startswith("| none |")
    assert row.endswith("| exact | 1: 3 | 0 | yes |")


def test_scenarios_are_run_in_the_order_given_and_an_unknown_one_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert faults.parse(["--scenarios", "kill-web,none"]).scenarios == ["kill-web", "none"]
    assert faults.parse([]).scenarios == list(faults.FAULTS)
    with pytest.raises(SystemExit):
        faults.parse(["--scenarios", "none,unplug-the-router"])
    assert "unplug-the-router" in capsys.readouterr().err
