"""Amounts as people type them, stored as whole cents."""

from __future__ import annotations

import pytest

from bot.money.amounts import AmountError, format_amount, parse_amount


@pytest.mark.parametrize(("text", "cents"), [
    ("0.50", 50), ("$1", 100), (".5", 50), ("2,50", 250), ("1", 100), ("$0.05", 5),
    ("1,000", 100_000), ("1,000.50", 100_050), ("1.000,50", 100_050), ("€3", 300),
    (" 12.3 ", 1230), ("239", 23_900), ("5 USD", 500), ("0", 0), ("1,000,000", 100_000_000 // 1),
])
def test_amounts_as_people_type_them(text: str, cents: int) -> None:
    if cents > 10_000_000:
        with pytest.raises(AmountError, match="too large"):
            parse_amount(text)
    else:
        assert parse_amount(text) == cents


@pytest.mark.parametrize(("text", "words"), [
    ("abc", "isn't an amount"), ("-1", "negative"), ("1.234", "more than two decimals"),
    ("99999999", "too large"), ("", "isn't an amount"), ("1..2", "isn't an amount"),
    ("$", "isn't an amount"), ("1,2,3", "isn't an amount"), ("12,34.5.6", "isn't an amount"),
])
def test_nonsense_gets_a_clear_error(text: str, words: str) -> None:
    with pytest.raises(AmountError, match=words):
        parse_amount(text)


def test_zero_can_be_refused() -> None:
    with pytest.raises(AmountError, match="more than zero"):
        parse_amount("0", allow_zero=False)


def test_never_a_float() -> None:
    assert isinstance(parse_amount("0.10"), int)
    assert parse_amount("0.1") + parse_amount("0.2") == parse_amount("0.3")


@pytest.mark.parametrize(("cents", "text"), [(250, "$2.50"), (23_900, "$239.00"),
                                              (-300, "-$3.00"), (123_456_78, "$123,456.78"),
                                              (5, "$0.05"), (200, "$2.00"), (0, "$0.00")])
def test_format_always_shows_two_decimals(cents: int, text: str) -> None:
    assert format_amount(cents) == text


@pytest.mark.parametrize("text", ["9" * 5000, "1" + "0" * 4400 + ".50", "0" * 3000 + "1",
                                  "1," + "000," * 2000 + "000", "$" + "5" * 40])
def test_long_amounts_are_refused_with_a_short_quote(text: str) -> None:
    # Thousands of digits used to raise a bare ValueError (Python's int digit limit).
    with pytest.raises(AmountError, match="too long") as caught:
        parse_amount(text)
    message = str(caught.value)
    assert len(message) < 120 and text[:20] in message and "…" in message


def test_error_messages_quote_only_a_prefix() -> None:
    with pytest.raises(AmountError, match="isn't an amount") as caught:
        parse_amount("abcdefghijklmnopqrstuvwxyz")
    assert "'abcdefghijklmnopqrst…'" in str(caught.value)
    with pytest.raises(AmountError, match="isn't an amount") as caught:
        parse_amount("short")
    assert "'short'" in str(caught.value)


@pytest.mark.parametrize(("names", "expected"), [
    ({1: "Alice", 2: "Bob"}, "ledger-alice-bob.csv"),
    ({1: "Zoë O'Neil", 2: "../etc/passwd"}, "ledger-zoe-o-neil-etc-passwd.csv"),
    ({1: "🂡🂡", 2: "Bob"}, "ledger-1-bob.csv"),  # nothing safe in a name: its id
    ({1: "Sam", 2: "sam"}, "ledger-sam-1-sam-2.csv"),  # names that read the same: with ids
    ({}, "ledger-1-2.csv"),
])
def test_the_ledger_file_is_named_after_the_players(names: dict[int, str], expected: str
                                                    ) -> None:
    from bot.app.cogs.money_commands import csv_filename
    assert csv_filename(names, 1, 2) == expected
