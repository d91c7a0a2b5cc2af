"""The kind of sentence a question asks an abstract for: the plan's answer type.

The learned router (rag/router.py) reads it from a question, or from each part of a two-part
question (rag/parts.py); rag.cues tells the sentences of each kind apart.
"""

from __future__ import annotations

from .models import AnswerType

QuestionType = AnswerType
