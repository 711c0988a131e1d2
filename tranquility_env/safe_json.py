"""JSON from untrusted text with its size checked before it is used: nesting no deeper than
``max_depth`` (Python's parser recurses, so a deep one would end in ``RecursionError``), integers of
at most ``MAX_DIGITS`` digits, and no NaN or infinity. Every refusal is a ``ValueError`` that says
what is wrong."""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DIGITS = 30
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def depth(text: str, limit: int) -> int:
    """How deep ``text``'s arrays and objects nest, counted up to ``limit + 1``: each pass takes
    away the innermost pairs of brackets (outside strings), so the count costs at most
    ``limit + 1`` passes over the text, however deep it goes."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    level = 0
    while brackets and level <= limit:
        fewer = _INNERMOST.sub("", brackets)
        if fewer == brackets:  # unbalanced: the parser will say where
            break
        brackets, level = fewer, level + 1
    return level


def loads(text: str | bytes, max_depth: int = 8) -> Any:
    """``json.loads`` of ``text`` within the limits above; ``ValueError`` for bad JSON too."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"not UTF-8 ({err.reason} at byte {err.start})") from None
    if depth(text, max_depth) > max_depth:
        raise ValueError(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_int=_integer, parse_constant=_constant, parse_float=_float)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err})") from None


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
