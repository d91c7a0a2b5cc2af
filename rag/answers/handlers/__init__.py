"""One handler per QuestionKind answered over the whole collection (collection.py routes)."""
