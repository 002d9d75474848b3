"""A lane's owner in Redis: one drain at a time, pushes wake the owner instead of sending messages, and
letting go while refs wait hands the lane to a new drain message (never a lane left without one), refs of
a claim that failed go back where they were, and the sweeper's ``revive`` queues only what is missing. Every
key of a lane expires."""

from __future__ import annotations

import secrets

from services.probing.rounds import lanes
from services.probing.rounds.lanes import LaneRef
from services.redis_client import get_redis, key


def _domain() -> str:
    return f"lane-{secrets.token_hex(4)}.test"


def test_the_first_push_asks_for_a_drain_and_later_pushes_do_not(database_url) -> None:
    domain = _domain()
    assert lanes.push([LaneRef(1, domain, 7, 2)]) == [domain]
    assert lanes.push([LaneRef(2, domain, 8, 1)]) == []  # a message is already on its way
    token = lanes.take(domain)
    assert token is not None
    assert lanes.take(domain) is None  # one owner at a time
    assert lanes.pop_round(domain, 100).group_ids == [1, 2]  # accounts in turn


def test_a_push_to_an_owned_lane_wakes_its_owner(database_url) -> None:
    domain = _domain()
    lanes.push([LaneRef(1, domain, 7, 1)])
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 100).group_ids == [1]
    assert lanes.wait_for_push(domain, 0.1) is False

    assert lanes.push([LaneRef(2, domain, 7, 1)]) == []  # no message: the owner takes it
    assert lanes.wait_for_push(domain, 1.0) is True
    assert lanes.pop_round(domain, 100).group_ids == [2]


def test_letting_go_with_refs_waiting_hands_the_lane_to_a_new_message(database_url) -> None:
    domain = _domain()
    lanes.push([LaneRef(1, domain, 7, 1), LaneRef(2, domain, 7, 1)])
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 1).group_ids == [1]

    assert lanes.let_go(domain, token) is True  # ref 2 still waits: the caller sends a drain message
    assert lanes.push([LaneRef(3, domain, 7, 1)]) == []  # and pushes meanwhile need none of their own
    second = lanes.take(domain)
    assert second is not None
    assert lanes.pop_round(domain, 100).group_ids == [2, 3]
    assert lanes.let_go(domain, second) is False  # empty: nobody needs to drain it
    assert lanes.push([LaneRef(4, domain, 7, 1)]) == [domain]


def test_an_owner_whose_hold_was_lost_cannot_let_go_of_the_new_owners_lane(database_url) -> None:
    domain = _domain()
    lanes.push([LaneRef(1, domain, 7, 1)])
    assert lanes.take(domain) is not None
    assert lanes.let_go(domain, "someone-else") is False


def test_every_key_of_a_lane_expires_while_its_refs_are_taken_in_turns(database_url) -> None:
    domain = _domain()
    lanes.push([LaneRef(1, domain, 7, 1), LaneRef(2, domain, 7, 1)])
    token = lanes.take(domain)
    assert token is not None
    lanes.push([LaneRef(3, domain, 7, 1)])  # a wake-up for the owner

    assert lanes.pop_round(domain, 1).group_ids == [1]  # the one account's turn comes round again

    names = list(get_redis().scan_iter(match=key("lane", domain, "*")))
    assert len(names) == 4  # the turns, account 7's queue, the owner and the wake-up
    assert all(get_redis().ttl(name) > 0 for name in names)
    assert lanes.pop_round(domain, 100).group_ids == [2, 3]


def test_refs_put_back_after_a_failed_claim_come_out_again_in_the_same_turn_order(database_url) -> None:
    domain = _domain()
    lanes.push([LaneRef(1, domain, 7, 1), LaneRef(2, domain, 7, 1), LaneRef(3, domain, 8, 1)])
    assert lanes.take(domain) is not None
    popped = lanes.pop_round(domain, 2)
    assert popped.group_ids == [1, 3]  # accounts in turn

    lanes.put_back(popped)

    assert lanes.pop_round(domain, 100).group_ids == [1, 3, 2]


def test_revive_queues_only_missing_refs_and_wakes_a_lane_nobody_owns(database_url) -> None:
    domain = _domain()
    refs = [LaneRef(1, domain, 7, 1), LaneRef(2, domain, 7, 1)]
    lanes.push(refs)
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 1).group_ids == [1]  # then the drain dies with ref 1
    assert lanes.revive(refs) == []  # owned: the owner drains what was missing
    assert lanes.owners([domain]) == {domain: token}

    assert lanes.let_go(domain, token) is True  # ref 2 still waits, a drain message is on its way
    assert lanes.owners([domain]) == {domain: "sent"}
    lanes.drain_not_sent(domain)  # ... and was never sent
    assert lanes.revive(refs) == [domain]  # nobody owns it: a drain message is needed

    assert lanes.take(domain) is not None
    assert lanes.pop_round(domain, 100).group_ids == [2, 1]  # each once


def _mx_lane() -> str:
    return f"mx/127.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}-{secrets.token_hex(3)}"


def test_an_mx_address_lane_wakes_a_seat_per_group_of_its_own_up_to_its_seats(database_url) -> None:
    lane = _mx_lane()
    assert lanes.push([LaneRef(1, lane, 7, 50, seats=3)]) == [lane]
    assert lanes.push([LaneRef(2, lane, 8, 50, seats=3)]) == [f"{lane}#1"]  # two refs keep two busy
    woken = lanes.push([LaneRef(3, lane, 7, 50, seats=3), LaneRef(4, lane, 7, 50, seats=3)])
    assert woken == [f"{lane}#2"]  # never more drains than the address's sessions
    assert lanes.push([LaneRef(5, lane, 9, 50, seats=3)]) == []


def test_the_seats_of_one_lane_drain_it_side_by_side_each_ref_once(database_url) -> None:
    lane = _mx_lane()
    lanes.push([LaneRef(group, lane, 7, 60, seats=3) for group in range(1, 7)])
    seats = [lanes.seat_name(lane, n) for n in range(3)]
    tokens = [lanes.take(seat) for seat in seats]
    assert None not in tokens
    assert lanes.take(seats[1]) is None  # one owner a seat
    assert all(lanes.lane_of(str(token)) == seat for token, seat in zip(tokens, seats, strict=True))

    rounds = [lanes.pop_round(lanes.lane_of_seat(seat), 100).group_ids for seat in seats]

    assert rounds == [[1, 2], [3, 4], [5, 6]]
    assert lanes.owners(seats) == dict(zip(seats, tokens, strict=True))


def test_a_push_wakes_an_owner_per_write_of_addresses_and_letting_go_is_per_seat(database_url) -> None:
    lane = _mx_lane()
    lanes.push([LaneRef(1, lane, 7, 1, seats=3), LaneRef(2, lane, 7, 1, seats=3)])
    first, second = lanes.take(lane), lanes.take(f"{lane}#1")
    assert first is not None
    assert second is not None
    assert lanes.pop_round(lane, 100).group_ids == [1, 2]

    assert lanes.push([LaneRef(3, lane, 7, 1, seats=3, domain="a.test")]) == []  # owned
    assert lanes.wait_for_push(lane, 1.0) is True
    assert lanes.wait_for_push(lane, 0.1) is False  # one address waits: one owner takes it
    assert lanes.push([LaneRef(4, lane, 7, 10, seats=3, domain="b.test")]) == []
    assert lanes.wait_for_push(lane, 1.0) is True
    assert lanes.wait_for_push(lane, 1.0) is True  # 11 addresses, more than a write: both owners
    assert lanes.let_go(f"{lane}#1", second) is True  # refs 3 and 4 wait: that seat gets a new message
    assert lanes.owners([lane, f"{lane}#1"]) == {lane: first, f"{lane}#1": "sent"}
    assert lanes.let_go(f"{lane}#1", first) is False  # a token lets go of its own seat only


def test_a_round_of_a_lane_with_seats_takes_its_share_of_the_small_refs_waiting(database_url) -> None:
    lane = _mx_lane()
    lanes.push([LaneRef(group, lane, 7 + group % 2, 1, seats=3) for group in range(1, 8)])

    shares = [lanes.pop_round(lane, 100, seats=3).group_ids for _ in range(4)]

    assert shares == [[1, 2, 3], [4, 5], [6], [7]]  # a third of 7 waiting, of 4, of 2, of 1 (rounded up)


def test_a_round_of_a_lane_with_seats_takes_at_least_a_writes_worth_of_refs(database_url) -> None:
    lane = _mx_lane()
    lanes.push([LaneRef(group, lane, 7, 1, seats=3) for group in range(1, 31)])

    rounds = [lanes.pop_round(lane, 100, seats=3, least=9).group_ids for _ in range(4)]

    # a third of 30 waiting, then never fewer than 9: splitting 11 in three would cost three rounds
    assert rounds == [list(range(1, 11)), list(range(11, 20)), list(range(20, 29)), [29, 30]]


def test_a_round_takes_the_refs_waiting_for_its_domains_from_every_account(database_url) -> None:
    lane = _mx_lane()
    domains = {1: "a.test", 2: "b.test", 3: "c.test", 4: "c.test", 5: "a.test", 6: "d.test"}
    refs = [LaneRef(group, lane, 7 if group <= 3 else 8, 1, 3, domain) for group, domain in domains.items()]
    lanes.push(refs)

    first = lanes.pop_round(lane, 100, seats=3).group_ids

    assert first == [1, 4, 3, 5]  # its share in turn (a.test, c.test), then c.test's and a.test's others
    rest = [lanes.pop_round(lane, 100, seats=3).group_ids for _ in range(3)]
    assert rest == [[2], [6], []]


def test_a_lane_wakes_one_seat_per_round_of_each_domain_waiting_and_per_write_of_addresses(
    database_url,
) -> None:
    lane = _mx_lane()
    one_domain = [LaneRef(group, lane, 7 + group % 2, 1, 3, "only.test") for group in range(1, 6)]
    assert lanes.push(one_domain) == [lane]  # a few addresses of one domain ride one session
    assert lanes.push([LaneRef(6, lane, 7, 1, 3, "only.test")]) == []
    assert lanes.push([LaneRef(7, lane, 9, 1, 3, "other.test")]) == []  # 7 addresses: one write carries them
    assert lanes.push([LaneRef(8, lane, 9, 10, 3, "third.test")]) == [f"{lane}#1"]  # 17: two writes
    assert lanes.push([LaneRef(9, lane, 9, 1, 3, "fourth.test")]) == []
    woken = lanes.push([LaneRef(10, lane, 9, 10, 3, "fifth.test")])
    assert woken == [f"{lane}#2"]


def test_a_big_domain_alone_behind_its_address_is_carried_by_every_seat(database_url) -> None:
    lane = _mx_lane()
    assert lanes.push([LaneRef(1, lane, 7, 100, 3, "gmail.test")]) == [lane]
    assert lanes.push([LaneRef(2, lane, 7, 60, 3, "gmail.test")]) == [f"{lane}#1"]  # a second round's worth
    assert lanes.push([LaneRef(3, lane, 7, 100, 3, "gmail.test")]) == [f"{lane}#2"]
