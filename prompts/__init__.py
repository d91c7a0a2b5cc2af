"""PaperChat's prompt templates, shipped as package data and loaded by rag.prompts."""
