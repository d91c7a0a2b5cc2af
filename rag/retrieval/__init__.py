"""Finding passages and papers: hybrid search, rank fusion, sentence support, topic matching."""
