"""Composing answers: the offline answerer, the model answerer, one handler per question kind."""
