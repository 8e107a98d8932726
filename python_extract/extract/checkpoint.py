"""Checkpoints inside a resource. A resource that keeps state of its own (a `ResourceState` argument)
updates that state, then yields `CHECKPOINT`: "the rows so far, with the state as it is now, are one
load". The extractor seals the open load package there, so a crash after the checkpoint keeps those
rows and that state, and a crash before it keeps neither. Airbyte STATE messages and the Stream API's
checkpoints (every N records, after each slice) are such checkpoints.
"""
from __future__ import annotations


class Checkpoint:
    __slots__ = ()

    def __repr__(self) -> str:
        return "CHECKPOINT"


CHECKPOINT = Checkpoint()
