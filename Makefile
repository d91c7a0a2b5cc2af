# PaperChat: `make run` starts the chat on the sample corpus, `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SAMPLE ?= data/iclr2026_seed_abstracts.txt
SHARED ?= ../shared/data

.PHONY: install run test test-fast lint bench-ingest bench-query bench-cli bench-cold test-llamacpp browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) -m rag ingest --if-empty $(SAMPLE)
	$(PY) -m rag serve

# Browser tests drive Debian's chromium; install it when we can (root, apt), with a font that
# has Chinese and Japanese glyphs so screenshots of such questions are legible.
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -f $(CJK_FONT) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null; \
	  else echo "chromium or fonts-wqy-zenhei missing: browser tests may be skipped (apt-get install chromium fonts-wqy-zenhei)"; fi; \
	fi

test: install browser
	$(PY) -m ruff check rag ui eval tests
	$(PY) -m pytest -q -ra

test-fast: install
	$(PY) -m pytest -q -ra -m "not slow"

lint: install
	$(PY) -m ruff check rag ui eval tests

bench-ingest: install
	$(PY) eval/bench_ingest.py --corpus $(SHARED)/iclr2026_accepted.jsonl

bench-query: install
	$(PY) eval/bench_query.py --corpus $(SHARED)/iclr2026_accepted.jsonl

# `paperchat --help` and a first offline `ask` on the sample, in new processes.
bench-cli: install
	$(PY) eval/bench_cli.py

# Cold start at 19, 4,303 and a synthetic 50,000 papers, web app start, warm latency, derived
# index builds; the two big indexes are built once and cached in .paperchat/bench (BENCH_ARGS).
bench-cold: install
	$(PY) eval/bench_cold.py --corpus $(SHARED)/iclr2026_accepted.jsonl $(BENCH_ARGS)

# A real model (SmolLM2-135M on llama.cpp; compiles llama-cpp-python once).
test-llamacpp: install
	bash eval/llamacpp.sh

clean:
	rm -rf .paperchat .pytest_cache

# Faults, hostile input, security, load and scale-out in one table; FULL=1 for 50k chunks.
.PHONY: reliability
reliability: install
	$(PY) eval/reliability.py $(if $(FULL),--full,)
