"""Play in the browser: ``tranquility serve`` (the ``web`` extra), a table and a replay viewer."""

__all__ = []
