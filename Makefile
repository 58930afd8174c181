# paimon-c: thin wrapper around CMake.
#   make            build into build/ (CLI build/paimon, build/libpaimon.{a,so})
#   make test       install missing Debian packages (as root), build, run every test in a
#                   normal build, a clang build (-Werror, the same warnings), an ASan+UBSan
#                   build, and a TSan build for the concurrent tests
#   make demo       run the main job on a local warehouse
#   make install    install into PREFIX (default /usr/local; DESTDIR honoured);
#                   make uninstall PREFIX=... removes exactly what that install put there
#   make docs       API reference from the headers (build/docs/html), fails on any warning
#   make test-install  install into /tmp/p and build an out-of-tree project against it
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEBIAN_PACKAGES = cmake gcc make pkg-config python3 libjansson-dev libzstd-dev \
  libsnappy-dev liblz4-dev zlib1g-dev libroaring-dev libcmocka-dev zstd \
  python3-avro python3-zstandard python3-snappy tzdata \
  libmicrohttpd-dev curl doxygen g++ clang-format-14 clang \
  libcurl4-openssl-dev libssl-dev nodejs python3-boto3

.PHONY: all build build-clang build-asan build-tsan deps test fuzz demo clean

all: build

deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else echo "missing Debian packages:$$missing (run as root or install them)"; exit 1; fi; \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j $(JOBS)

# clang reports warnings gcc does not (and the reverse): every warning is an error in both.
build-clang: deps
	CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAIMON_WERROR=ON >/dev/null
	cmake --build build-clang -j $(JOBS)

build-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPAIMON_ASAN=ON >/dev/null
	cmake --build build-asan -j $(JOBS)

build-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DPAIMON_TSAN=ON >/dev/null
	cmake --build build-tsan -j $(JOBS)

# Every test in a normal build, again in a clang build (but the checks that do not depend on
# the compiler: formatting, API docs, header compile), again under ASan+UBSan, and the
# concurrent parts (real-time store, context, union reads, Parquet page-compression helpers)
# under TSan.
test: build build-clang build-asan build-tsan
	cd build && ctest --output-on-failure -j $(JOBS)
	cd build-clang && ctest --output-on-failure -j $(JOBS) -E '^(format_check|api_docs|header_check)$$'
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 PM_RT_CONC_SECONDS=30 \
	  ctest --output-on-failure -j $(JOBS) -R 'realtime|store|rt_|parquet_write|test_io|test_write|test_pk_write|test_read_parallel'

# libFuzzer binaries (clang; the library is coverage-instrumented too):
# build-fuzz/fuzz/<name>_fuzzer. Run one from its seeds; new inputs go to the first
# directory, so give a scratch one first, e.g.
#   mkdir -p /tmp/c && build-fuzz/fuzz/parquet_fuzzer -max_total_time=60 /tmp/c fuzz/corpora/parquet
fuzz: deps
	@command -v clang >/dev/null || (apt-get install -y -qq clang libclang-rt-14-dev >/dev/null)
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DPAIMON_FUZZ=ON -DPAIMON_ASAN=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS)

demo: build
	bash tools/demo.sh

# make test-oracle: checks every file our writer produces (Parquet and Avro data files,
# manifests, manifest lists, snapshot and schema JSON) with independent readers (DuckDB,
# hyparquet, python3-avro) and against Java Paimon's files in ../shared/compat; installs
# the oracles on first use (tests/oracle/run.sh).
.PHONY: test-oracle
test-oracle: build
	BUILD=$(CURDIR)/build bash tests/oracle/run.sh

clean:
	rm -rf build build-clang build-asan build-tsan build-fuzz

# ---- install / uninstall / docs / test-install ----------------------------------------
PREFIX ?= /usr/local
TEST_PREFIX ?= /tmp/p
# cmake --install rewrites build/install_manifest.txt on every install (ctest's temporary
# installs too), so each install keeps its own copy, named after DESTDIR + PREFIX.
INSTALL_DIR = $(abspath $(PREFIX))
MANIFEST = build/install_manifest$(subst /,_,$(abspath $(DESTDIR))$(INSTALL_DIR)).txt

.PHONY: install uninstall docs test-install

install: build
	DESTDIR="$(DESTDIR)" cmake --install build --prefix "$(INSTALL_DIR)"
	cp build/install_manifest.txt "$(MANIFEST)"

uninstall:
	@if [ ! -f "$(MANIFEST)" ]; then \
	  echo "no record of an install into $(DESTDIR)$(INSTALL_DIR) ($(MANIFEST))"; exit 1; fi
	@# The manifest lists paths without DESTDIR, and has no final newline.
	@while IFS= read -r f || [ -n "$$f" ]; do \
	  f="$(DESTDIR)$$f"; \
	  if [ -e "$$f" ] || [ -L "$$f" ]; then rm -f "$$f" && echo "removed $$f"; fi; \
	done < "$(MANIFEST)"
	@# only the directories that belong to paimon, and only when empty
	@{ cat "$(MANIFEST)"; echo; } | sed -n 's|/[^/]*$$||p' | grep -E '/paimon(/sys)?$$' | sort -ru | \
	  while IFS= read -r d; do d="$(DESTDIR)$$d"; [ -d "$$d" ] && rmdir "$$d" 2>/dev/null; true; done
	@rm -f "$(MANIFEST)"

# Doxygen with docs/Doxyfile; any warning (an undocumented public symbol) fails.
docs: deps
	bash tests/headers/check_docs.sh . build/docs

test-install:
	bash tests/scripts/test_install.sh --make "$(TEST_PREFIX)"
