# Thin wrapper over CMake. `make reproduce` replays the paper, `make regime` the regime map;
# `make test` runs the tests.
# Each installs missing Debian packages first (scripts/install-deps.sh, a no-op when present).
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test test-long reproduce regime figures-check sanitize mutation bench-compare clean calibrate-examples testbed testbed-check testbed-dev install
PREFIX ?= /usr/local

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# `make test` leaves out the checks labelled long (ctest -L long lists them: minutes of
# replays each); `make test-long` runs them, and CI runs both. Time limits inside the test
# harnesses scale with LEVERSIM_TEST_TIME_FACTOR (default 1): raise it on a loaded machine.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE long

test-long: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L long

# The paper's figures and tables (runner/experiments/paper.yaml); prints its wall and CPU time.
reproduce: build
	./$(BUILD)/leversim reproduce

# The binary, man page, bash completion, policy header and example, data root (CMakeLists.txt).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The regime map, beyond the paper (runner/experiments/regime.yaml): results/regime.db and the
# figure results/figures/regime.png; checked by results/baseline/regime.yaml.
regime: build
	./$(BUILD)/leversim reproduce --regime

# Do the committed figures and tables (results/figures) match the replay? Draws them from the
# databases `make reproduce` and `make regime` wrote (FULL=, REGIME= name others) and compares
# (scripts/figures_check.sh: tables and figure data exactly, PNGs by their data): exit 2 naming
# each file that differs, with the command that redraws them. CI runs it on its own replays.
FULL ?= results/leversim.db
REGIME ?= results/regime.db
figures-check: build
	@bash scripts/figures_check.sh --bin ./$(BUILD)/leversim --full "$(FULL)" --regime "$(REGIME)"

# Refits the shipped profiles' llama.cpp Hexagon and flash numbers to the measurement files
# they cite (devices/measurements/README.md) and checks each fitted number against the profile
# (--check: within one standard error, exit 2 otherwise); the CPU example is informative.
MEAS = devices/measurements
CALIB = ./$(BUILD)/leversim calibrate --check
calibrate-examples: build
	@mkdir -p $(BUILD)/calibrated
	$(CALIB) --base oneplus-12 --model qwen3-4b --fix op_call --llama-bench $(MEAS)/8gen3-qwen3.5-4b-hexagon.csv \
	  --fio $(MEAS)/8gen3-ufs40-fio.json --out $(BUILD)/calibrated/oneplus-12.yaml --plot $(BUILD)/calibrated
	$(CALIB) --base honor-magic-v5 --llama-bench $(MEAS)/8elite-llama-3.2-1b-hexagon.csv $(MEAS)/8elite-other-hexagon.json \
	  --out $(BUILD)/calibrated/honor-magic-v5.yaml
	$(CALIB) --base honor-500-pro --llama-bench $(MEAS)/8elite-llama-3.2-1b-hexagon.csv $(MEAS)/8elite-other-hexagon.json \
	  --out $(BUILD)/calibrated/honor-500-pro.yaml
	./$(BUILD)/leversim calibrate --base oneplus-12 --only cpu --llama-bench $(MEAS)/8gen3-cpu-executorch.csv \
	  --out $(BUILD)/calibrated/oneplus-12-cpu.yaml

# The sim-to-real check (docs/VALIDATION.md §0): the current pre-registered protocol,
# protocol-4 (runner/testbed/protocol-4.yaml): six configurations measured on a real
# llama.cpp, four repetitions, each calibrated from its calibration passes and predicting its
# held-out ones; ends with the protocol's one line and exits 2 when a target is missed
# (estimated 15 to 18 minutes on 2 idle cores, the build included). protocol-1 to -3 stay
# runnable: `bash scripts/testbed/protocol.sh runner/testbed/protocol.yaml` (or protocol-2.yaml,
# protocol-3.yaml).
# The run is appended to results/testbed/protocol-runs.md whatever its result.
testbed: build
	bash scripts/testbed/protocol.sh

# The development run of docs/VALIDATION.md §3 (llama-3.2-1b as published, one thread, with the
# busy streams and the repacked case; about 15 minutes): not the protocol.
testbed-dev: build
	bash scripts/testbed/run.sh full

# Every testbed test, the long ones too (testbed.refit refits every published run: minutes).
# No timing: they check behaviour and the published runs' numbers.
testbed-check: build
	cd $(BUILD) && ctest --output-on-failure -R '^testbed\.'

# AddressSanitizer + UBSan build of everything, then its tests.
sanitize:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DLEVERSIM_SANITIZE=ON $(CMAKE_FLAGS)"

# Mutation testing: every mutant in tests/mutation/mutants must make its tests fail
# (tests/mutation/README.md); prints the kill rate.
mutation: deps
	@bash tests/mutation/run.sh

# Speed of this checkout beside an older revision (REV, default 6222c0f), both built and
# measured interleaved in one run (scripts/bench_compare.sh, docs/PERFORMANCE.md).
bench-compare: deps
	@bash scripts/bench_compare.sh $(REV)

clean:
	rm -rf build build-asan
