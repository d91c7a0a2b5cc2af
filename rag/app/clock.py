"""Seconds per stage of one question (plan, retrieve, generate …), stamped on its Answer."""

from __future__ import annotations

import time


class Clock:
    """Seconds per stage of one question, each lap the time since the stages already timed."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.timings: dict[str, float] = {}

    def lap(self, stage: str, add: bool = False) -> None:
        """Time a stage (`add`: onto its earlier time, for a stage run twice)."""
        spent = round(time.perf_counter() - self.start - sum(self.timings.values()), 4)
        self.timings[stage] = (self.timings.get(stage, 0.0) if add else 0.0) + spent

    def done(self) -> dict[str, float]:
        """The stages' times and the total."""
        self.timings["total"] = round(time.perf_counter() - self.start, 4)
        return self.timings
