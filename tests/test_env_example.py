"""`.env.example` documents every setting."""

from pathlib import Path

from pydantic import BaseModel

from rag.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


def env_names() -> list[str]:
    """Every variable the settings tree reads."""
    names = []
    for name, field in Settings.model_fields.items():
        factory = field.default_factory
        if isinstance(factory, type) and issubclass(factory, BaseModel):
            names += [f"PAPERCHAT_{name.upper()}__{sub.upper()}" for sub in factory.model_fields]
        elif name.startswith("openai_"):
            names.append(name.upper())
        else:
            names.append(f"PAPERCHAT_{name.upper()}")
    return names


def test_every_setting_is_documented() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    missing = [n for n in env_names() if f"{n}=" not in text]
    assert not missing, f".env.example lacks {missing}"


def test_every_setting_has_a_description() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, name
        factory = field.default_factory
        if isinstance(factory, type) and issubclass(factory, BaseModel):
            for sub, f in factory.model_fields.items():
                assert f.description, f"{name}.{sub}"
