# Builds libarrowmetal (one library for every machine: GPU backends load their
# drivers at run time) and drives the tests and the demo.

UNAME_S := $(shell uname -s)
CC ?= cc
PYTHON ?= python3
VENV ?= .venv

# Unit-test programs (*_test.c) sit beside the code they test; they are not
# part of the library.
SOURCES := $(filter-out %_test.c,$(wildcard libarrowmetal/abi/*.c libarrowmetal/core/*.c \
             libarrowmetal/cpu/*.c libarrowmetal/cuda/*.c libarrowmetal/gpu/*.c \
             libarrowmetal/metal/*.c))
# The Objective-C Metal core, compiled only where Metal exists. Where it is
# built, metal/unavailable.c (the stand-in that explains why Metal cannot
# run) is left out, so the library has exactly one am_metal_backend.
OBJC_SOURCES := $(wildcard libarrowmetal/metal/*.m)
ifeq ($(UNAME_S),Darwin)
  ifneq ($(OBJC_SOURCES),)
    SOURCES := $(filter-out libarrowmetal/metal/unavailable.c,$(SOURCES))
  endif
endif
# BUILD holds the objects and the library; the wheel's build uses its own
# (build/manylinux), made by another compiler.
BUILD ?= build
OBJECTS := $(patsubst %.c,$(BUILD)/%.o,$(SOURCES))
DEPS := $(OBJECTS:.o=.d)

CFLAGS ?= -O3 -g
# The library never reads errno, so sqrt and the rounding functions compile
# to their instructions (and vectorize) instead of calls that may set it; nor
# the floating-point exception flags, which values never depend on: GCC 12
# vectorizes floor, ceil and trunc (roundpd) only where their inexact flag
# may go unraised (cpu/round.c's loops among them).
CFLAGS += -fno-math-errno -fno-trapping-math
CFLAGS += -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
          -Iinclude -Ilibarrowmetal -MMD -MP
LDLIBS += -lpthread -lm

ifeq ($(UNAME_S),Darwin)
  LIB := $(BUILD)/libarrowmetal.dylib
  LINK := $(LIB)
  LDFLAGS += -dynamiclib -install_name @rpath/libarrowmetal.dylib
  OBJECTS += $(patsubst %.m,$(BUILD)/%.o,$(OBJC_SOURCES))
  LDLIBS += -framework Metal -framework Foundation -framework CoreFoundation
  # vForce (cpu/vector_math.c)
  LDLIBS += -framework Accelerate
else
  # The file carries the ABI's major version (its soname); libarrowmetal.so,
  # a link to it, is what `-larrowmetal` finds when a program is linked.
  LIB := $(BUILD)/libarrowmetal.so.0
  LINK := $(BUILD)/libarrowmetal.so
  LDFLAGS += -shared -Wl,--no-undefined -Wl,-soname,libarrowmetal.so.0
  LDLIBS += -ldl
endif

.PHONY: all lib api install test test-asan demo format lint clean check-macos check-msl wheel fuzz fuzz-build \
        conformance-c
all: lib python/arrowmetal/$(notdir $(LIB))

lib: $(LIB) $(LINK) $(BUILD)/package.pc

$(LIB): $(OBJECTS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ifneq ($(LINK),$(LIB))
$(LINK): $(LIB)
	ln -sf $(notdir $(LIB)) $@
endif

# The Python package loads the library that sits next to it first.
python/arrowmetal/$(notdir $(LIB)): $(LIB)
	cp $< $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.m
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fobjc-arc -Wundeclared-selector -c $< -o $@

-include $(DEPS)

# For embedders: the library, the header and a pkg-config file under PREFIX
# (make install PREFIX=$$HOME/.local). DESTDIR stages the tree elsewhere (for a
# package build) without changing the paths written into arrowmetal.pc. The
# version comes from the header, so the .pc cannot disagree with it.
# arrowmetal.pc names libdir and includedir through ${prefix} when they lie
# under it, so pkg-config --define-prefix can relocate the tree.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
VERSION := $(shell sed -n 's/^\#define ARROWMETAL_VERSION_STRING "\(.*\)"/\1/p' include/arrowmetal.h)
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
install: $(LIB) arrowmetal.pc.in
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(LIB) $(DESTDIR)$(LIBDIR)/
	if [ "$(LINK)" != "$(LIB)" ]; then ln -sf $(notdir $(LIB)) $(DESTDIR)$(LIBDIR)/$(notdir $(LINK)); fi
	install -m 644 include/arrowmetal.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
	  -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	  -e 's|@LIBS@|-L$${libdir} -larrowmetal|' arrowmetal.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/arrowmetal.pc

# The pkg-config file the Python package ships: the library and the header lie
# beside it (${pcfiledir}), wherever pip put them. The package holds only the
# library's versioned file, so Libs names it by path, with an rpath to find it
# at run time.
$(BUILD)/package.pc: arrowmetal.pc.in include/arrowmetal.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$${pcfiledir}|' -e 's|@LIBDIR@|$${prefix}|' -e 's|@INCLUDEDIR@|$${prefix}|' \
	  -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS@|$${libdir}/$(notdir $(LIB)) -Wl,-rpath,$${libdir}|' \
	  arrowmetal.pc.in > $@

# A manylinux_2_28 x86-64 wheel in dist/, which installs with pip on any such
# Linux, no compiler needed. The library is built by zig's clang against
# glibc 2.28's symbols (the ziglang package from PyPI, installed into the venv:
# this machine's own glibc is newer), the API-mode module by the usual compiler
# (it needs nothing newer); auditwheel checks both against the policy, strips
# them and tags the wheel. The library links nothing from CUDA: it loads the
# driver at run time. LDSHARED keeps the rpath of the Python that builds the
# module (pyenv's, say) out of it: the module finds the library by $$ORIGIN.
WHEEL_BUILD := build/manylinux
WHEEL_CC ?= $(abspath $(VENV))/bin/python -m ziglang cc -target x86_64-linux-gnu.2.28
wheel: $(VENV)/.installed
	rm -rf $(WHEEL_BUILD)/dist dist
	$(MAKE) $(JOBS) lib BUILD=$(WHEEL_BUILD) CC="$(WHEEL_CC)"
	ARROWMETAL_BUILD=$(WHEEL_BUILD) LDSHARED="$${CC:-cc} -shared" \
	  $(VENV)/bin/python -m pip wheel -q --no-deps \
	  --no-build-isolation -w $(WHEEL_BUILD)/dist .
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/auditwheel repair --plat manylinux_2_28_x86_64 --strip -w dist \
	  $(WHEEL_BUILD)/dist/arrowmetal-*.whl
	@ls dist/*.whl

# The Python package's compiled cffi module (API mode: faster calls than the
# ABI mode it falls back to; see python/arrowmetal/_build_ext.py). Built on
# every run (about a second), so it always matches the header, the library
# and the venv's Python.
api: python/arrowmetal/$(notdir $(LIB)) $(VENV)/.installed
	$(VENV)/bin/python python/arrowmetal/_build_ext.py build

# Everything a fresh machine needs for the tests goes into $(VENV).
$(VENV)/.installed: requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -r requirements-test.txt
	touch $@

# The conformance cases in Arrow IPC (issue #16): conformance/write_ipc.py writes
# them from the committed JSON with pyarrow into $(IPC_DIR) (derived, so not
# committed), and the C runner of conformance/c/ runs them: C against
# include/arrowmetal.h, the IPC read by Arrow C++ from the pyarrow wheel
# (headers and libarrow that pip already installed; C++20, which its headers
# need). -ffp-contract=off: the README's float draws are a multiply and an add,
# each rounded.
IPC_DIR := $(BUILD)/conformance-ipc
IPC_CASES := $(IPC_DIR)/.written
CR_BUILD := $(BUILD)/conformance-c
CR_RUNNER := $(CR_BUILD)/conformance_runner
CR_OBJECTS := $(patsubst conformance/c/%.c,$(CR_BUILD)/%.o,$(wildcard conformance/c/*.c)) \
              $(CR_BUILD)/arrow_bridge.o
PYARROW_DIR = $(shell $(VENV)/bin/python -c "import pyarrow; print(pyarrow.get_library_dirs()[0])")
PYARROW_INCLUDE = $(shell $(VENV)/bin/python -c "import pyarrow; print(pyarrow.get_include())")

PY_DIRS := python conformance examples benchmarks libarrowmetal fuzz
C_FILES = $(shell git ls-files '*.c' '*.h' '*.m' '*.cu' 2>/dev/null)

# The tests, then the conformance cases from their IPC form through the C
# runner (conformance-c, below) on this build, then the sanitizer jobs of
# issue #15: ASan + UBSan (which runs every case through the Python loop
# runner too: the same check as test_conformance.py's test_case with the
# release counts and the memory given back, without pytest's cost per case;
# `pytest conformance` runs them one test each), TSan and the fuzzers (make
# fuzz replays the seeds and regressions that fuzz/test_fuzz.py replays, so
# pytest skips fuzz/). The library builds first with every core (the-library).
test: the-library all api wheel $(VENV)/.installed lint check-macos check-msl $(CR_RUNNER) \
      $(IPC_CASES) tz-database
	$(VENV)/bin/python -m pytest -n auto -q --durations=25 python conformance examples \
	  libarrowmetal --ignore=conformance/test_conformance.py
	$(CR_RUNNER) $(IPC_DIR)
	$(MAKE) --no-print-directory test-asan test-tsan fuzz

# The time-zone tests and cases read the system's tz database, as the library
# and pyarrow do (/usr/share/zoneinfo: Debian's tzdata). Installed where it is
# missing and apt-get can; where it cannot, those tests and cases skip and say
# why (python/tests/test_timezone.py, conformance/amabi.py, the C runner).
.PHONY: tz-database
tz-database:
	@test -f /usr/share/zoneinfo/America/New_York || { echo "test: installing tzdata"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tzdata; } \
	  >/dev/null 2>&1; } || echo "test: no tz database (apt-get failed): time-zone tests skip"

# The nested builds of the library compile on every core unless make already
# runs with -j (its jobserver then shares them out).
JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(shell nproc))
.PHONY: the-library
the-library:
	$(MAKE) --no-print-directory $(JOBS) all

# The rules of the IPC cases and the C runner (variables above `test`).
$(IPC_CASES): $(wildcard conformance/cases/*.json.gz) conformance/write_ipc.py conformance/casefmt.py \
              $(VENV)/.installed
	$(VENV)/bin/python conformance/write_ipc.py --out $(IPC_DIR)
	touch $@

$(CR_BUILD)/%.o: conformance/c/%.c $(wildcard conformance/c/*.h) include/arrowmetal.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -ffp-contract=off -Wall -Wextra -Werror -Iinclude -c $< -o $@

$(CR_BUILD)/arrow_bridge.o: conformance/c/arrow_bridge.cc conformance/c/arrow_bridge.h $(VENV)/.installed
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -Wall -Wextra -Werror -Iinclude -isystem $(PYARROW_INCLUDE) -c $< -o $@

# libarrow by its path (the wheel ships libarrow.so.N or libarrow.N.dylib, no
# unversioned name for -larrow to find).
$(CR_RUNNER): $(CR_OBJECTS) $(LINK)
	$(CXX) -o $@ $(CR_OBJECTS) -L$(BUILD) -larrowmetal -Wl,-rpath,$(abspath $(BUILD)) \
	  $(firstword $(wildcard $(PYARROW_DIR)/libarrow.so.* $(PYARROW_DIR)/libarrow.*.dylib)) \
	  -Wl,-rpath,$(PYARROW_DIR)

# Builds the IPC cases and the C runner, and runs every case on every backend here.
conformance-c: $(CR_RUNNER) $(IPC_CASES)
	$(CR_RUNNER) $(IPC_DIR)

# The conformance suite and the Python tests against the library built by
# clang with AddressSanitizer and UBSan (every UBSan check, pointer-overflow
# and alignment included; -fno-sanitize-recover: the first report fails the
# run), every CPU kernel on the worker pool (ARROWMETAL_PARALLEL_MIN=64). The
# library goes to build/asan, beside the normal one, and the package loads it
# through ARROWMETAL_LIBRARY (the sanitizer runtime preloaded into Python).
# The cases run in two shards side by side through conformance/run_all.py,
# without pytest's cost per case. test_embed (C programs linked against the
# library by the system compiler, without the sanitizer runtime) and
# test_wheel (the normal build) are left to the normal run. Leaks are not checked: Python's own
# allocations at exit would drown them (the fuzz targets check leaks).
ASAN_BUILD := build/asan
SANITIZE := -fsanitize=address,undefined,pointer-overflow,alignment -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
ASAN_RUN = LD_PRELOAD="$$(clang -print-file-name=libclang_rt.asan-x86_64.so)" \
  ARROWMETAL_LIBRARY="$(abspath $(ASAN_BUILD))/libarrowmetal.so.0" ARROWMETAL_PARALLEL_MIN=64 \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-asan: all $(VENV)/.installed
	@command -v clang >/dev/null || { echo "test-asan: installing clang"; \
	  { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null; } || exit 1
	CFLAGS="-O1 -g $(SANITIZE)" LDFLAGS="$(SANITIZE) -shared-libsan" \
	  $(MAKE) --no-print-directory $(JOBS) lib BUILD=$(ASAN_BUILD) CC=clang
	$(ASAN_RUN) $(VENV)/bin/python conformance/run_all.py --shard 0/2 & first=$$!; \
	  $(ASAN_RUN) $(VENV)/bin/python conformance/run_all.py --shard 1/2; second=$$?; \
	  wait $$first && [ $$second -eq 0 ]
	$(ASAN_RUN) $(VENV)/bin/python -m pytest -n 2 -q -p no:cacheprovider python \
	  --ignore=python/tests/test_wheel.py --ignore=python/tests/test_embed.py

# Every C and Objective-C file of the library (not the host-side unit test
# programs), type-checked for macOS on Apple
# silicon against Apple's SDK headers, without a Mac: clang -fsyntax-only with
# the macOS target. MACOS_SDK defaults to the SDK headers kept beside the
# repository (../shared/macos-sdk, never copied in); without one the target
# says so and skips. clang is installed from Debian when missing.
MACOS_SDK ?= $(wildcard ../shared/macos-sdk/MacOSX14.2.sdk)
MACOS_FLAGS := -fsyntax-only -target arm64-apple-macos13 -D__ENVIRONMENT_OS_VERSION_MIN_REQUIRED__=130000 \
               -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Ilibarrowmetal
METAL_FIXTURES := libarrowmetal/metal/fixtures
MACOS_C := $(filter-out %_test.c,$(wildcard libarrowmetal/*/*.c))
MACOS_OBJC := $(wildcard libarrowmetal/*/*.m)
check-macos:
	@if [ -z "$(MACOS_SDK)" ] || [ ! -d "$(MACOS_SDK)" ]; then \
	  echo "check-macos: skipped: no macOS SDK (set MACOS_SDK=/path/to/MacOSX.sdk)"; exit 0; fi; \
	command -v clang >/dev/null || { echo "check-macos: installing clang"; \
	  { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null; } || exit 1; \
	for f in $(MACOS_C); do \
	  clang -std=c11 $(MACOS_FLAGS) -isysroot "$(MACOS_SDK)" $$f || exit 1; done; \
	for f in $(MACOS_OBJC); do \
	  clang -x objective-c -fobjc-arc -Wundeclared-selector $(MACOS_FLAGS) -isysroot "$(MACOS_SDK)" \
	    $$f || exit 1; done; \
	if clang -x objective-c -fobjc-arc -Wundeclared-selector $(MACOS_FLAGS) -isysroot "$(MACOS_SDK)" \
	    $(METAL_FIXTURES)/seeded_fault.m 2>/dev/null; then \
	  echo "check-macos: self-test FAILED: the seeded fault passed"; exit 1; fi; \
	echo "check-macos: $(words $(MACOS_C)) C and $(words $(MACOS_OBJC)) Objective-C files type-check for arm64-apple-macos13 against $(MACOS_SDK); the seeded fault fails, as it must"

# Every Metal Shading Language kernel the generator makes, parse- and
# type-checked by clang against msl-check's declarations-only prelude written
# from Apple's MSL specification (../shared/msl-check; its README says what
# that can and cannot catch). No Apple compiler is involved. Without
# msl-check the target says so and skips.
MSL_CHECK ?= $(wildcard ../shared/msl-check/check.sh)
GENERATOR := libarrowmetal/gpu/kernel_source_test.c libarrowmetal/gpu/kernel_source.c \
             libarrowmetal/gpu/kernel_source_aggregate.c \
             libarrowmetal/gpu/dialect.c libarrowmetal/gpu/dialect_pow64.c libarrowmetal/gpu/dialect_unary64.c libarrowmetal/core/types.c libarrowmetal/core/error.c \
             libarrowmetal/core/ops.c \
             libarrowmetal/gpu/kernel_source_nulls.c \
             libarrowmetal/gpu/kernel_source_round.c libarrowmetal/core/round.c \
             libarrowmetal/gpu/kernel_source_select.c \
             libarrowmetal/gpu/kernel_source_cumulative.c \
             libarrowmetal/gpu/kernel_source_hash.c \
             libarrowmetal/gpu/kernel_source_sort.c \
             libarrowmetal/gpu/kernel_source_groupby.c \
             libarrowmetal/gpu/kernel_source_temporal.c libarrowmetal/core/temporal.c \
             libarrowmetal/gpu/kernel_source_strings.c \
             libarrowmetal/gpu/kernel_source_resident.c \
             libarrowmetal/gpu/kernel_source_batch.c \
             libarrowmetal/core/round_temporal.c
check-msl:
	@if [ -z "$(MSL_CHECK)" ]; then \
	  echo "check-msl: skipped: no msl-check (set MSL_CHECK=/path/to/check.sh)"; exit 0; fi; \
	command -v clang >/dev/null || { echo "check-msl: installing clang"; \
	  { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null; } || exit 1; \
	tmp=$$(mktemp -d); mkdir -p $$tmp/msl $$tmp/fault; \
	cp $(METAL_FIXTURES)/seeded_fault.metal $$tmp/fault/; \
	if bash $(MSL_CHECK) $$tmp/fault >/dev/null 2>&1; then \
	  echo "check-msl: self-test FAILED: the seeded fault passed"; rm -rf $$tmp; exit 1; fi; \
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -Iinclude -Ilibarrowmetal $(GENERATOR) -o $$tmp/generator -lm && \
	  $$tmp/generator dump msl $$tmp/msl >/dev/null && bash $(MSL_CHECK) $$tmp/msl && \
	  echo "check-msl: the seeded fault fails, as it must"; \
	status=$$?; rm -rf $$tmp; exit $$status

demo: all api $(VENV)/.installed
	PYTHONPATH=python $(VENV)/bin/python examples/demo.py

format: $(VENV)/.installed
	$(VENV)/bin/clang-format -i $(C_FILES)
	$(VENV)/bin/ruff format $(PY_DIRS)

lint: $(VENV)/.installed
	$(VENV)/bin/clang-format --dry-run -Werror $(C_FILES)
	$(VENV)/bin/ruff check $(PY_DIRS)
	$(VENV)/bin/ruff format --check $(PY_DIRS)

clean:
	rm -rf build dist python/arrowmetal/libarrowmetal.so* python/arrowmetal/libarrowmetal.dylib \
	  python/arrowmetal/_api.*

# libFuzzer targets (fuzz/, see fuzz/README.md): the import path, op sequences
# and the route-file parser, each built with clang, ASan and UBSan against the
# library's sources compiled into $(FUZZ_BUILD) (the normal build is never
# touched). `make fuzz` replays the seed corpus and the regressions, then runs
# the three fuzzers at once for FUZZ_SECONDS each; any crash, leak or UBSan
# report fails it and names the artifact.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_CC ?= clang
FUZZ_BUILD := build/fuzz
FUZZ_TARGETS := import_fuzz ops_fuzz routes_fuzz tzif_fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=c11 -D_GNU_SOURCE -fno-math-errno -fno-trapping-math -Wall -Wextra -Werror \
               -Iinclude -Ilibarrowmetal $(FUZZ_SAN)
FUZZ_OBJECTS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out libarrowmetal/metal/%.m,$(SOURCES)))
FUZZ_BINS := $(addprefix $(FUZZ_BUILD)/,$(FUZZ_TARGETS))

$(FUZZ_BUILD)/libarrowmetal/%.o: libarrowmetal/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/%: fuzz/%.c fuzz/fuzz_common.h $(FUZZ_OBJECTS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJECTS) -lpthread -lm -ldl

-include $(FUZZ_OBJECTS:.o=.d)
.SECONDARY: $(FUZZ_OBJECTS)

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: installing clang"; \
	  { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null; } || exit 1
	$(MAKE) $(if $(findstring j,$(MAKEFLAGS)),,-j$(FUZZ_JOBS)) $(FUZZ_BINS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)
# ThreadSanitizer (issue #15): libarrowmetal/abi/stress_test.c, 8 threads of
# mixed ops, batches and commits, runtime-control changes and device probes,
# every result checked against a single-threaded answer. The library's
# sources are compiled by clang with -fsanitize=thread into $(TSAN_BUILD)
# (never the normal build) and linked into the program itself, since clang
# links TSan's runtime only into executables. No target_clones: their ifunc
# resolvers crash under gcc's TSan, so AM_CPU_CLONES is defined empty
# (cpu/cpu.h; clang builds none anyway), and TSAN_CC=gcc works too (with
# TSAN_BUILD=build/tsan-gcc, say). The objects build in parallel unless make
# already runs with -j.
# The pool runs kernels of 1,024 slots and more (ARROWMETAL_PARALLEL_MIN;
# bitmap kernels from 16,384 bits, cpu/pool.h), so its fork-join is raced
# too. First two self-tests, each of which must fail:
# a seeded race (TSan must report it) and seeded wrong answers (the checks
# must catch them). Any TSan report or wrong answer fails the target.
TSAN_BUILD ?= build/tsan
TSAN_SECONDS ?= 20
TSAN_CC ?= clang
# Without address randomization (setarch -R) where it can be turned off: TSan
# of clang 14 cannot map its shadow memory under the larger mmap
# randomization of newer kernels (vm.mmap_rnd_bits above 28).
TSAN_NORAND = $(shell setarch $$(uname -m) -R true 2>/dev/null && echo setarch $$(uname -m) -R)
TSAN_RUN = TSAN_OPTIONS="halt_on_error=1 exitcode=66" ARROWMETAL_BACKEND=cpu \
           ARROWMETAL_PARALLEL_MIN=1024 $(TSAN_NORAND) $(TSAN_BUILD)/stress_test
.PHONY: test-tsan
test-tsan:
	@command -v $(TSAN_CC) >/dev/null || { echo "test-tsan: installing clang"; \
	  { apt-get update -qq && apt-get install -y -qq clang; } >/dev/null; } || exit 1
	@CFLAGS="-O1 -g -fsanitize=thread -DAM_CPU_CLONES=" $(MAKE) --no-print-directory \
	  $(JOBS) BUILD=$(TSAN_BUILD) CC=$(TSAN_CC) $(TSAN_BUILD)/stress_test
	@if $(TSAN_RUN) --seeded-race >$(TSAN_BUILD)/seeded.log 2>&1 || \
	    ! grep -q "ThreadSanitizer: data race" $(TSAN_BUILD)/seeded.log; then \
	  echo "test-tsan: self-test FAILED: TSan did not report the seeded race"; exit 1; fi
	@if $(TSAN_RUN) --seeded-wrong 1 >$(TSAN_BUILD)/seeded.log 2>&1; then \
	  echo "test-tsan: self-test FAILED: the seeded wrong answers passed"; exit 1; fi
	@echo "test-tsan: the seeded race and the seeded wrong answers fail, as they must"
	$(TSAN_RUN) $(TSAN_SECONDS)

# The stress program of test-tsan, linked with the library's objects.
$(BUILD)/stress_test: libarrowmetal/abi/stress_test.c $(OBJECTS)
	$(CC) $(filter-out -MMD -MP -fPIC -fvisibility=hidden,$(CFLAGS)) -o $@ $^ $(LDLIBS)
