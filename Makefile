# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/strategylens catalog validate
	$(BIN)/strategylens catalog list
	$(BIN)/strategylens tag tasks/*/solutions --format human || true

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not gpu" tests

lint: $(STAMP)
	$(BIN)/ruff check strategylens tests

clean:
	rm -rf $(VENV) build *.egg-info
