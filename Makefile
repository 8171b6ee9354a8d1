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

DEMO := demo-out

# The main job on the bundled data: check the catalog, list the corpus's gold labels, tag every
# corpus solution with the H200 corpus runs' evidence (and the harness's cheats with theirs),
# then relate the labels to the committed H200 corpus measurements in a report (ablation
# variants left out of the models and shown as ladders).
demo: $(STAMP)
	$(BIN)/strategylens catalog validate
	$(BIN)/strategylens catalog list
	mkdir -p $(DEMO)
	$(BIN)/strategylens corpus labels --format json > $(DEMO)/gold.json
	$(BIN)/strategylens tag tasks/*/solutions --task auto --store analyses/h200-corpus --format jsonl > $(DEMO)/labels.jsonl
	$(BIN)/strategylens tag tests/cheats tests/fixtures/harness_task/saxpy/solutions --task auto --store analyses/h200 --format jsonl > $(DEMO)/cheats.jsonl
	$(BIN)/strategylens results export analyses/h200-corpus --format csv > $(DEMO)/h200.csv
	$(BIN)/strategylens report --store analyses/h200-corpus --labels $(DEMO)/labels.jsonl $(foreach f,$(wildcard tasks/*/labels.yaml),--ladders $(f)) --out $(DEMO)/report
	@echo "demo: gold labels in $(DEMO)/gold.json, tags in $(DEMO)/labels.jsonl (cheats: $(DEMO)/cheats.jsonl), H200 corpus results in $(DEMO)/h200.csv, report in $(DEMO)/report/report.html"

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not gpu" tests

lint: $(STAMP)
	$(BIN)/ruff check strategylens tests
	$(BIN)/strategylens catalog docs --check

clean:
	rm -rf $(VENV) build *.egg-info $(DEMO)
