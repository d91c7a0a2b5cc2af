"""The conference map: paper layout, themes and their labels, and the figure."""
