#!/usr/bin/env bash
# dnnplace from a fresh Debian 12 machine to a result, in one command.
#
#   scripts/dev.sh demo   install what is missing, build, solve a bundled example
#   scripts/dev.sh test   install what is missing, build twice (plain with g++,
#                         and with clang, AddressSanitizer + UndefinedBehaviorSanitizer
#                         and libFuzzer's coverage), run the whole test suite in
#                         both builds, then fuzz each libFuzzer target of the
#                         second for FUZZ_SECONDS (default 60) (scripts/fuzz.sh)
#   scripts/dev.sh build  install what is missing and build (build/release)
#   scripts/dev.sh models install Debian's PyTorch too, build, re-export the model
#                         zoo (scripts/export_models.py) and check it
#
# The paper's data is looked up in ../shared (override: DNNPLACE_SHARED=DIR).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
jobs=$(nproc 2>/dev/null || echo 2)
shared=${DNNPLACE_SHARED:-$here/../shared}

packages=(build-essential cmake pkg-config nlohmann-json3-dev libcli11-dev
          coinor-libcbc-dev libscotch-dev googletest libgtest-dev libbenchmark-dev graphviz time libgraphviz-dev chromium
          clang libclang-rt-14-dev libonnx-dev libprotobuf-dev
          pybind11-dev python3-dev python3-pytest python3-torch python3-torchvision)

install_packages() {  # extra packages...
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

configure_and_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -DDNNPLACE_SHARED_DIR="$shared" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

run_tests() {  # dir
  DNNPLACE_SHARED="$shared" ctest --test-dir "$1" --output-on-failure -j"$jobs" --timeout 900
}

case "${1:-}" in
  demo)
    install_packages
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release
    example=examples/transformer_training.json
    echo "dev.sh: dnnplace solve $example --method dp" >&2
    build/release/dnnplace solve "$example" --method dp --out build/transformer_training.plan.json
    build/release/dnnplace evaluate "$example" build/transformer_training.plan.json --contiguous
    ;;
  test)
    install_packages
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release -DDNNPLACE_WERROR=ON
    run_tests build/release
    # One clang build serves the sanitizer tests and the fuzz targets (the
    # library carries libFuzzer's coverage instrumentation; the tests link
    # without libFuzzer).
    configure_and_build build/sanitize -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNPLACE_SANITIZE=ON -DDNNPLACE_FUZZ=ON \
      -DDNNPLACE_BUILD_BENCH=OFF -DDNNPLACE_WERROR=ON
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_tests build/sanitize
    FUZZ_SECONDS=${FUZZ_SECONDS:-60} FUZZ_BUILD=build/sanitize ./scripts/fuzz.sh
    ;;
  build)
    install_packages
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release
    ;;
  models)
    install_packages python3-torch python3-torchvision python3-onnx
    configure_and_build build/release -DCMAKE_BUILD_TYPE=Release
    /usr/bin/python3 scripts/export_models.py
    /usr/bin/python3 scripts/export_models.py --check --dnnplace build/release/dnnplace
    ;;
  *)
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
