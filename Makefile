# Thin wrapper over CMake. `make reproduce` replays the paper; `make test` runs the tests.
# Both install missing Debian packages first (scripts/install-deps.sh, a no-op when present).
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test reproduce sanitize mutation clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

reproduce: build
	./$(BUILD)/leversim reproduce

# AddressSanitizer + UBSan build of everything, then its tests.
sanitize:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DLEVERSIM_SANITIZE=ON $(CMAKE_FLAGS)"

# Mutation testing: every mutant in tests/mutation/mutants must make its tests fail
# (tests/mutation/README.md); prints the kill rate.
mutation: deps
	@bash tests/mutation/run.sh

clean:
	rm -rf build build-asan
