"""JSON from untrusted text with its size checked before it is used: nesting no deeper than
``max_depth`` (Python's parser recurses, so a deep one would end in ``RecursionError``), integers of
at most ``MAX_DIGITS`` digits, no NaN or infinity, and no string that is not Unicode text (a lone
surrogate such as ``"\\ud800"`` could be read but never written out again). Every refusal is a
``ValueError`` that says what is wrong; ``shown`` quotes a bad value in at most 100 characters.
Each check takes time linear in the text."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

__all__ = ["depth", "loads", "shown"]

MAX_DIGITS = 30
SHOWN = 100  # characters of a bad value an error quotes
# A string, or an unclosed one to the end: every match attempt at a quote succeeds, so the scan is
# linear (a pattern that could fail would be retried at every later quote).
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = np.zeros(256, dtype=np.int64)
_STEP[[ord("["), ord("{")]], _STEP[[ord("]"), ord("}")]] = 1, -1


def depth(text: str) -> int:
    """How deep ``text``'s arrays and objects nest, outside strings: the most brackets open at
    once (for unbalanced text, as deep as a parser would go before it fails)."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if not brackets:
        return 0
    return max(0, int(np.cumsum(_STEP[np.frombuffer(brackets.encode(), dtype=np.uint8)]).max()))


def loads(text: str | bytes, max_depth: int = 8) -> Any:
    """``json.loads`` of ``text`` within the limits above; ``ValueError`` for bad JSON too."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"not UTF-8 ({err.reason} at byte {err.start})") from None
    if depth(text) > max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_constant, parse_float=_float)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err})") from None
    except RecursionError:  # not reached within max_depth; kept so that no input can raise it
        raise ValueError(f"JSON nested deeper than {max_depth} levels") from None
    _check_text(value)
    return value


def shown(value: Any) -> str:
    """``repr(value)``, cut to its first ``SHOWN`` characters (a hostile value may be megabytes)."""
    text = repr(value) if not isinstance(value, str) or len(value) <= SHOWN else repr(value[:SHOWN])
    return text if len(text) <= SHOWN + 2 else text[:SHOWN] + "..."


def _check_text(value: Any) -> None:
    """Every string and key is Unicode text (encodes as UTF-8)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_text(item)
    elif isinstance(value, list):
        for item in value:
            _check_text(item)
    elif isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"a string that is not Unicode text (a lone surrogate): {value[:20]!r}") from None


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(digits)} digits (at most {MAX_DIGITS} are read): {digits[:20]}...")
    return int(digits)


def _float(text: str) -> float:
    if len(text) > 2 * MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} characters (at most {2 * MAX_DIGITS} are read): {text[:20]}...")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"a number out of range: {text[:20]}")
    return value


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")
