"""Understanding a question: the lexicon, the learned router, the planner and its typed Plan."""
