"""What a user may choose per question (UI settings, CLI flags, eval configurations)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rag.models import Filters
from rag.protocols import Mode

AnswererName = Literal["auto", "extractive", "model"]


class AskOptions(BaseModel):
    """Per-question choices a user can make (UI settings, CLI flags, eval configurations)."""

    k: int | None = Field(default=None, description="Papers to retrieve; None uses settings.")
    filters: Filters = Field(default_factory=Filters)
    retrieval: Mode | None = Field(default=None, description="None uses settings.")
    answerer: AnswererName = Field(
        default="auto", description="auto: the model when one is configured, else extractive."
    )
    show_weak: bool = Field(
        default=False,
        description="Show the closest evidence (marked weak) instead of refusing.",
    )
    drop_filters: list[str] = Field(
        default_factory=list,
        description="Plan filters the user removed (a UI chip's ×), e.g. ['decision'].",
    )
    depth: int | None = Field(
        default=None,
        ge=1,
        description="Papers ranked into Answer.retrieved (at least k); the answer reads the "
        "first k. None ranks k.",
    )
    refusal_threshold: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Refuse when P(answerable) is below this; None uses the refusal model's.",
    )
