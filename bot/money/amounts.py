"""Money as people type it, kept as whole cents (never floats).

``parse_amount("0.50") == 50``, ``"$1" → 100``, ``".5" → 50``, ``"2,50" → 250``,
``"1,000" → 100000``, ``"1.000,50" → 100050``. Anything else raises ``AmountError`` with a
message for the user. Amounts are always shown with two decimals (``$2.00``, ``$2.05``), in
every message and picture, so the same sum never looks like two different ones.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CENTS", "MAX_LENGTH", "AmountError", "format_amount", "parse_amount", "quoted"]

MAX_CENTS = 10_000_000
"""The largest amount accepted (100,000.00): stakes are between friends."""
MAX_LENGTH = 30
"""The longest text read as an amount (``100,000.00 USD`` is 14). Longer text is refused before
it is read: Python refuses to turn thousands of digits into a number, and a reply quoting it
whole would not fit in a Discord message."""
QUOTE_LENGTH = 20
"""How much of what the user typed an error message quotes."""

_SYMBOLS = "$€£¥₹₩₽¢"
_DIGITS = re.compile(r"^\d+$")


class AmountError(ValueError):
    """An amount that can't be read; the message says what is wrong and how to write it."""


def parse_amount(text: str, *, allow_zero: bool = True, maximum: int = MAX_CENTS) -> int:
    """Read an amount (``0.50``, ``$1``, ``.5``, ``2,50``) as a number of cents."""
    raw = (text or "").strip()
    if len(raw) > MAX_LENGTH:
        raise AmountError(f"{quoted(raw)} is too long for an amount: the most is "
                          f"{format_amount(maximum, '')}.")
    cleaned = raw.replace(" ", "").replace("\u00a0", "").strip(_SYMBOLS)
    cleaned = cleaned.strip(_SYMBOLS)
    if cleaned.upper().endswith(("USD", "EUR", "GBP")):
        cleaned = cleaned[:-3]
    if cleaned.startswith("-"):
        raise AmountError(f"{quoted(raw)}: an amount can't be negative.")
    if cleaned.startswith("+"):
        cleaned = cleaned[1:]
    if not cleaned or not re.fullmatch(r"[\d.,]+", cleaned) or not re.search(r"\d", cleaned):
        raise AmountError(f"{quoted(raw)} isn't an amount. Write it like 0.50, $1, .5 or 2,50.")
    whole, cents = _split(cleaned, raw)
    if len(cents) > 2:
        raise AmountError(f"{quoted(raw)} has more than two decimals: amounts go to the cent.")
    value = int(whole or "0") * 100 + int((cents + "00")[:2])
    if value > maximum:
        raise AmountError(f"{quoted(raw)} is too large: the most is {format_amount(maximum, '')}.")
    if value == 0 and not allow_zero:
        raise AmountError("The amount must be more than zero.")
    return value


def _split(text: str, raw: str) -> tuple[str, str]:
    """Split into whole and decimal digits, working out which mark is the decimal one."""
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        head, _, tail = text.rpartition(decimal)
        return _ungroup(head, thousands, raw), _digits(tail, raw)
    for mark in (",", "."):
        if mark in text:
            parts = text.split(mark)
            if len(parts) > 2 or (mark == "," and len(parts[-1]) == 3 and parts[0]):
                # "1,000" and "1,000,000" group thousands; "1.000.000" too.
                if all(len(p) == 3 for p in parts[1:]) and 1 <= len(parts[0]) <= 3:
                    return "".join(parts), ""
                raise AmountError(f"{quoted(raw)} isn't an amount. Write it like 0.50, $1 or 2,50.")
            head, tail = parts
            return _digits(head, raw, empty_ok=True), _digits(tail, raw)
    return _digits(text, raw), ""


def _ungroup(head: str, mark: str, raw: str) -> str:
    parts = head.split(mark)
    if len(parts) > 1 and not (1 <= len(parts[0]) <= 3 and all(len(p) == 3 for p in parts[1:])):
        raise AmountError(f"{quoted(raw)} isn't an amount. Write it like 1,000.50 or 1.000,50.")
    return _digits("".join(parts), raw)


def _digits(part: str, raw: str, *, empty_ok: bool = False) -> str:
    if part == "" and empty_ok:
        return ""
    if not _DIGITS.match(part):
        raise AmountError(f"{quoted(raw)} isn't an amount. Write it like 0.50, $1 or 2,50.")
    return part


def quoted(text: str) -> str:
    """What the user typed, quoted for an error message: at most a short prefix."""
    shown = text if len(text) <= QUOTE_LENGTH else text[:QUOTE_LENGTH] + "…"
    return repr(shown)


def format_amount(cents: int, symbol: str = "$") -> str:
    """``$2.50``, ``$239.00``, ``-$3.00``: always two decimals."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{symbol}{whole:,}.{part:02d}"
