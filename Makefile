# SPDX-License-Identifier: MIT
# Convenience entry points; the build itself is CMake (CMakeLists.txt).
#
#   make run        install the build's missing packages, build, convert
#                   the bundled example to an HTML flame graph
#   make test       install the missing packages of the build and the
#                   tests, check the formatting, build with -Werror, run
#                   every test
#   make format     reformat the C sources with .clang-format
#   make sanitize   clang + ASan/UBSan build in build-asan, run every test;
#                   its library is static (make test's is shared), so CI
#                   builds, installs and links both (unit.consumer)
#   make valgrind   the CLI golden tests with every tool under valgrind
#   make fuzz       clang + libFuzzer + ASan/UBSan build of the fuzz
#                   targets in build-fuzz: replay every corpus, then
#                   fuzz each target for FUZZ_SECONDS (default 20)
#   make mutate     mutation testing: each mutant of tests/mutate/mutants.txt
#                   applied in turn to a copy of the tree (build-mutate/,
#                   clang + ASan/UBSan), the fast suite run on it; prints
#                   the mutation score and the survivors (MUTANTS=id,id:
#                   only those; scripts/mutate.py --help)
#   make deb        the Debian packages in build-deb/ (docs/install.md)
#
# Variables: BUILD (default build), ASAN_BUILD (default build-asan),
# FUZZ_BUILD (default build-fuzz), FUZZ_SECONDS, JOBS.
SHELL := /bin/bash
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all run test sanitize fuzz valgrind mutate deb deps deps-test deps-deb \
	deps-sanitize build clean format-check format

all: build

deps:
	@scripts/install-deps.sh --build

deps-test:
	@scripts/install-deps.sh --test

deps-deb:
	@scripts/install-deps.sh --deb

deps-sanitize:
	@scripts/install-deps.sh --test --sanitize

build: deps
	cmake -S . -B $(BUILD)
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/example.sh $(BUILD)

test: deps-test format-check
	cmake -S . -B $(BUILD) -DTACHYON_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)
	@scripts/ctest-summary.sh $(BUILD) $(JOBS)

sanitize: deps-sanitize
	CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_BUILD_TYPE=Debug -DTACHYON_WERROR=ON \
	  -DTACHYON_SANITIZE=address,undefined -DBUILD_SHARED_LIBS=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	@scripts/ctest-summary.sh $(ASAN_BUILD) $(JOBS)

# Only the fuzz targets are built (the library instrumented for coverage);
# the runs are serial, so the whole takes about 6 x FUZZ_SECONDS.
fuzz: deps-sanitize
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHYON_WERROR=ON \
	  -DTACHYON_BUILD_FUZZERS=ON -DTACHYON_SANITIZE=address,undefined \
	  -DBUILD_SHARED_LIBS=OFF -DTACHYON_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers
	cd $(FUZZ_BUILD) && ctest -L '^fuzz' --output-on-failure

# Any valgrind complaint changes the exit code or stderr, so the case fails.
valgrind: build
	@command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 2; }
	cd $(BUILD) && CLI_WRAPPER="valgrind -q --error-exitcode=99 \
	  --leak-check=full --errors-for-leak-kinds=definite" \
	  ctest -L cli --output-on-failure -j $(JOBS)

# Resumable: results are kept per mutant in build-mutate/results, keyed by
# the tree's contents, so a second run after an interruption goes on.
mutate: deps-sanitize
	@scripts/mutate.py --jobs $(JOBS) $(if $(MUTANTS),--only $(MUTANTS))

deb: deps-deb
	JOBS=$(JOBS) scripts/build-deb.sh build-deb

# Fail on any C file that differs from .clang-format (CI runs this as
# part of make test); make format fixes them.
format-check: deps-test
	@scripts/format-check.sh

format: deps-test
	@scripts/format-check.sh --fix

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) build-deb build-mutate
