"""Ingest and storage: loaders, chunking, embeddings, Chroma, and the indexes derived from it."""
