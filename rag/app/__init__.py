"""What the outside world calls: the Pipeline (composition root), the CLI, LlamaIndex faces."""
