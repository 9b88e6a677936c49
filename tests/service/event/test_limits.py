"""service/event/limits.py, WrongCodes alone, on a clock the test moves: the bounds exactly (the
tenth wrong code in a minute holds the address, the ninth not; a code a minute old no longer
counts), the /64 counted together, the oldest addresses forgotten first. The HTTP tests
(test_http.py, test_rotation.py) show the same through the service, in the slow tier."""

from __future__ import annotations

from service.event.limits import ADDRESSES, WRONG_CODES, WrongCodes


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_tenth_wrong_code_in_a_minute_holds_the_address_until_the_first_is_a_minute_old():
    clock = Clock()
    codes = WrongCodes(limit=10, window=60.0, clock=clock)
    for _ in range(9):
        codes.wrong("192.0.2.7")
        clock.now += 1
    assert codes.wait("192.0.2.7") == (0, "192.0.2.7")  # nine: still free
    codes.wrong("192.0.2.7")  # the tenth, 9 s after the first
    assert codes.wait("192.0.2.7") == (51, "192.0.2.7")  # until the first is 60 s old
    assert codes.wait("192.0.2.8") == (0, "192.0.2.8")  # another address is not held
    clock.now = 1000.0 + 59.5
    assert codes.wait("192.0.2.7") == (1, "192.0.2.7")  # half a second left: said as 1 s
    clock.now = 1000.0 + 60
    assert codes.wait("192.0.2.7") == (0, "192.0.2.7")  # the first is a minute old exactly: gone


def test_the_addresses_of_one_64_are_held_together_at_their_own_limit():
    clock = Clock()
    codes = WrongCodes(limit=10, window=60.0, clock=clock, network_limit=30)
    for n in range(29):  # rotating through the /64: no address reaches 10
        codes.wrong(f"2001:db8:1:2::{n % 5 + 1:x}")
    assert codes.wait("2001:db8:1:2::99") == (0, "2001:db8:1:2::99")
    codes.wrong("2001:db8:1:2::99")
    assert codes.wait("2001:db8:1:2::abc") == (60, "2001:db8:1:2::/64")  # any address of it, named by the /64
    assert codes.wait("2001:db8:1:3::1")[0] == 0  # the next /64 is not


def test_the_defaults_are_the_documented_ones_and_the_oldest_addresses_are_forgotten_first():
    clock = Clock()
    codes = WrongCodes(clock=clock)
    # docs/tournament.md (POST /v1/devices/pair): "10 wrong codes in a minute from one address, or
    # 30 from the addresses of one IPv6 /64"
    assert (codes.limit, codes.window, codes.network_limit) == (10, 60.0, 30)
    for _ in range(WRONG_CODES):
        codes.wrong("192.0.2.1")
    for n in range(ADDRESSES - 1):  # as many addresses as it keeps, with the first
        codes.wrong(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
    assert codes.wait("192.0.2.1")[0] > 0
    codes.wrong("198.51.100.1")  # one more: the least recently wrong is forgotten
    assert codes.wait("192.0.2.1") == (0, "192.0.2.1")
