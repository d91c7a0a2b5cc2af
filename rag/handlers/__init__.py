"""One handler per QuestionKind answered over the whole collection (rag/collection.py routes)."""
