"""The batched engine: many games as arrays, stepped by compiled code (numba).

``GameBatch`` holds the games; ``layout`` says where each field lives in a game's row; ``rules``,
``deal`` and ``encode`` are the compiled rules, deal and vector view on one row.
"""

from __future__ import annotations

from pathlib import Path


def _drop_stale_cache() -> None:
    """numba checks a cached kernel against the file that defines it, not the files it calls
    into, so an edit of ``rules.py`` would leave ``engine.py``'s kernels stale: forget every
    cached kernel of this package once any of its sources (or the rules' tables) is newer."""
    here = Path(__file__).parent
    cached = [*here.glob("__pycache__/*.nbi"), *here.glob("__pycache__/*.nbc")]
    if not cached:
        return
    sources = [*here.glob("*.py"), *(here.parent / "rules").glob("*.py"), here.parent / "encoding.py"]
    oldest = min(p.stat().st_mtime for p in cached)
    if max(p.stat().st_mtime for p in sources) > oldest:
        for p in cached:
            p.unlink(missing_ok=True)


_drop_stale_cache()

from tranquility_env.batch.engine import GameBatch, max_threads  # noqa: E402

__all__ = ["GameBatch", "max_threads"]
