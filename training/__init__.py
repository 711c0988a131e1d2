"""Trainers and evaluation, installed as ``tranquility_env.training`` (needs the ``train`` extra)."""

__all__ = []
