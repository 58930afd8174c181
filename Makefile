# paimon-c: thin wrapper around CMake.
#   make            build into build/ (CLI build/paimon, build/libpaimon.{a,so})
#   make test       install missing Debian packages (as root), build, run every test in a
#                   normal build and in an ASan+UBSan build (and TSan for concurrent tests)
#   make demo       run the main job on a local warehouse
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEBIAN_PACKAGES = cmake gcc make pkg-config python3 libjansson-dev libzstd-dev \
  libsnappy-dev liblz4-dev zlib1g-dev libroaring-dev libcmocka-dev zstd \
  python3-avro python3-zstandard python3-snappy tzdata

.PHONY: all build deps test test-asan test-tsan demo clean

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

build-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPAIMON_ASAN=ON >/dev/null
	cmake --build build-asan -j $(JOBS)

test: build build-asan
	cd build && ctest --output-on-failure -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -E 'corpus_compat'

demo: build
	bash tools/demo.sh

clean:
	rm -rf build build-asan build-tsan
