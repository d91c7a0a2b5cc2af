"""PaperChat web app (Gradio): `paperchat serve`, `ui.app.build_demo`, pure rendering."""
