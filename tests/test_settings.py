"""The typed settings tree: env vars, `.env`, nested sections, and secrets kept out of sight."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from rag.settings import LOCAL_EMBED_MODEL, OPENAI_EMBED_MODEL, ChunkSettings, Settings

SECRET = "sk-proj-very-secret-value-0123456789"


def settings(**overrides: object) -> Settings:
    return Settings(_env_file=None, **overrides)  # type: ignore[arg-type]


def test_defaults_are_offline() -> None:
    s = settings()
    assert s.chroma.host is None
    assert s.embedding.provider == "local" and s.embedding.model_name == LOCAL_EMBED_MODEL
    assert s.llm.provider == "none"
    assert s.openai_api_key is None and s.openai_base_url is None
    assert not s.uses_openai


def test_openai_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    s = settings()
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == SECRET
    assert s.openai_base_url == "http://127.0.0.1:8080/v1"


def test_prefixed_openai_variables_work_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERCHAT_OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("PAPERCHAT_OPENAI_BASE_URL", "http://localhost:11434/v1")
    s = settings()
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == SECRET
    assert s.openai_base_url == "http://localhost:11434/v1"


def test_nested_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PAPERCHAT_CHROMA__HOST", "chroma.internal")
    monkeypatch.setenv("PAPERCHAT_CHROMA__PORT", "8123")
    monkeypatch.setenv("PAPERCHAT_EMBEDDING__PROVIDER", "openai")
    monkeypatch.setenv("PAPERCHAT_CHUNKING__WINDOWS", "sentences")
    monkeypatch.setenv("PAPERCHAT_CHUNKING__SENTENCES", "4")
    monkeypatch.setenv("PAPERCHAT_CHUNKING__OVERLAP", "2")
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__TOP_K", "7")
    s = settings()
    assert s.data_dir == tmp_path
    assert (s.chroma.host, s.chroma.port) == ("chroma.internal", 8123)
    assert s.embedding.provider == "openai" and s.embedding.model_name == OPENAI_EMBED_MODEL
    assert (s.chunking.sentences, s.chunking.overlap) == (4, 2)
    assert s.retrieval.top_k == 7
    assert s.uses_openai


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        f"PAPERCHAT_DATA_DIR={tmp_path / 'idx'}\nOPENAI_API_KEY={SECRET}\n"
        "PAPERCHAT_LLM__PROVIDER=openai\nUNRELATED=1\n",
        encoding="utf-8",
    )
    s = Settings(_env_file=env)  # type: ignore[call-arg]
    assert s.data_dir == tmp_path / "idx"
    assert s.llm.provider == "openai"
    assert s.openai_api_key is not None and s.openai_api_key.get_secret_value() == SECRET


def test_environment_beats_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / ".env"
    env.write_text("PAPERCHAT_CHROMA__PORT=1111\n", encoding="utf-8")
    monkeypatch.setenv("PAPERCHAT_CHROMA__PORT", "2222")
    assert Settings(_env_file=env).chroma.port == 2222  # type: ignore[call-arg]


def test_secret_never_in_repr_or_dumps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    s = settings()
    for text in (repr(s), str(s), s.model_dump_json(), str(s.model_dump())):
        assert SECRET not in text
    assert "**" in repr(s.openai_api_key)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PAPERCHAT_CHROMA__PORT", SECRET),
        ("PAPERCHAT_LLM__TEMPERATURE", SECRET),
        ("PAPERCHAT_EMBEDDING__PROVIDER", SECRET),
        ("PAPERCHAT_CHROMA__COLLECTION", SECRET + "/"),
        ("PAPERCHAT_CHROMA", '{"host": "h", "port": "' + SECRET + '"}'),
    ],
)
def test_validation_errors_never_echo_values(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as info:
        settings()
    text = str(info.value)
    assert SECRET not in text and SECRET not in repr(info.value)
    # Still useful: it names the setting that is wrong.
    assert name.removeprefix("PAPERCHAT_").split("__")[-1].lower() in text.lower()


def test_chunk_overlap_must_be_below_size() -> None:
    with pytest.raises(ValidationError, match="overlap"):
        ChunkSettings(sentences=2, overlap=2)
    sliding = ChunkSettings(windows="sentences", sentences=2, overlap=1)
    assert sliding.signature != ChunkSettings().signature


def test_explicit_model_name_wins() -> None:
    s = settings(embedding={"provider": "openai", "model": "text-embedding-3-large"})
    assert s.embedding.model_name == "text-embedding-3-large"
