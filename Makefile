# paimon-c: thin wrapper around CMake.
#   make            build into build/ (CLI build/paimon, build/libpaimon.{a,so})
#   make test       install missing Debian packages (as root), build, run every test in a
#                   normal build and in an ASan+UBSan build (and TSan for concurrent tests)
#   make demo       run the main job on a local warehouse
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEBIAN_PACKAGES = cmake gcc make pkg-config python3 libjansson-dev libzstd-dev \
  libsnappy-dev liblz4-dev zlib1g-dev libroaring-dev libcmocka-dev zstd \
  python3-avro python3-zstandard python3-snappy tzdata

.PHONY: all build build-asan build-tsan deps test demo clean

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

build-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DPAIMON_TSAN=ON >/dev/null
	cmake --build build-tsan -j $(JOBS)

# Every test in a normal build, every test again under ASan+UBSan, and the concurrent
# parts (real-time store, context, union reads) under TSan.
test: build build-asan build-tsan
	cd build && ctest --output-on-failure -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS) -R 'realtime|store|rt_'

demo: build
	bash tools/demo.sh

clean:
	rm -rf build build-asan build-tsan
