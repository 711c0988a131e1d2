"""The README stays a page a newcomer reads in five minutes, and the docs' links lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_readme_is_a_short_page() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_and_named_file_exists(page: Path) -> None:
    text = page.read_text()
    links = re.findall(r"\]\(([^)#:]+)\)", text)
    named = re.findall(r"`((?:docs|tests|configs|training|tranquility_env|checkpoints)/[\w./]+)`", text)
    missing = [
        target
        for target in [*links, *named]
        if not (page.parent / target).exists() and not (ROOT / target).exists() and "<" not in target
    ]
    assert missing == []


def test_the_reference_tables_quoted_in_the_benchmark_page_are_those_of_the_run() -> None:
    """docs/benchmark.md quotes docs/reference/results.md (which `make benchmark` regenerates):
    every table row and the hardware line of its reference section are found there verbatim."""
    page = (ROOT / "docs" / "benchmark.md").read_text()
    section = page[page.index("## The reference run") :]
    quoted = [line for line in section.splitlines() if line.startswith(("| ", "hardware:"))]
    run = set((ROOT / "docs" / "reference" / "results.md").read_text().splitlines())
    assert len(quoted) > 50
    assert [line for line in quoted if line not in run] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_make_target_named_is_in_the_makefile(page: Path) -> None:
    targets = set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    named = set(re.findall(r"`make ([a-z][\w-]*)", page.read_text()))
    assert named - targets == set()
