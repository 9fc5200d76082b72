# phoneworld: `make demo` and `make test` set everything up on a fresh Debian machine with Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
APP := com.example.notes

.PHONY: setup demo test bench clean example-traces golden

setup: $(STAMP)

$(STAMP): pyproject.toml
	@if ! $(PYTHON) -c "import venv, ensurepip" >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y python3-venv; \
		else echo "python3-venv is missing: sudo apt-get install python3-venv"; exit 1; fi; fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: setup
	$(BIN)/phoneworld build examples/traces --out generated_apps --heldout 0.2
	$(BIN)/phoneworld run generated_apps/$(APP) --policy random --steps 12 --seed 1

test: setup
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/sim_throughput.py generated_apps/$(APP)/app.json

# Regenerate the bundled example traces and the golden build (explicit; never run by CI).
example-traces: setup
	$(BIN)/python examples/make_example_traces.py

golden: setup
	$(BIN)/python tests/golden/regenerate.py

clean:
	rm -rf generated_apps/com.* .pytest_cache
