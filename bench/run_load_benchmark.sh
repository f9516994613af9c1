#!/usr/bin/env bash
# Workload load time of this tree against another commit, side by side: the
# largest shipped workload and a generated chain of 200,002 nodes, each the
# median of several loads (bench/load_time.cpp), the two builds alternating.
#
#   bench/run_load_benchmark.sh [BASE_COMMIT] [ROUNDS]
#
# BASE_COMMIT defaults to 57d6f6c (the last commit with the RapidJSON reader).
# Only the sources that loading needs (src/io, src/model, src/util/format) are compiled.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${1:-57d6f6c}
rounds=${2:-5}
shared=${DNNPLACE_SHARED:-$here/../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build() {  # source tree, output binary
  local tree=$1
  local flags=(-std=c++20 -O3 -DNDEBUG -I"$tree/include" -I"$tree/src")
  # The RapidJSON reader of older trees scanned with SSE2.
  [ -d /usr/include/rapidjson ] && flags+=(-DRAPIDJSON_SSE2)
  local sources=("$tree"/src/io/*.cpp "$tree"/src/model/*.cpp)
  [ -f "$tree/src/util/format.cpp" ] && sources+=("$tree/src/util/format.cpp")
  c++ "${flags[@]}" "$here/bench/load_time.cpp" "${sources[@]}" -o "$2"
}

mkdir -p "$work/base"
git -C "$here" archive "$base" | tar -x -C "$work/base"
build "$work/base" "$work/load_base"
build "$here" "$work/load_new"

largest=$(ls -S "$shared"/workloads/*/*/*.json | head -1)
chain=$work/chain.json
if [ -x "$here/build/release/dnnplace" ]; then
  "$here/build/release/dnnplace" generate chain --blocks 100000 --training --out "$chain"
else
  echo "run_load_benchmark.sh: build/release/dnnplace is needed to generate the chain" >&2
  exit 2
fi

printf 'base: %s   this tree: %s\n' "$base" "$(git -C "$here" rev-parse --short HEAD)"
for file in "$largest" "$chain"; do
  b=() n=()
  for ((r = 0; r < rounds; ++r)); do
    b+=("$("$work/load_base" --repeats 5 "$file" | cut -f3 | cut -d' ' -f1)")
    n+=("$("$work/load_new" --repeats 5 "$file" | cut -f3 | cut -d' ' -f1)")
  done
  mb=$(printf '%s\n' "${b[@]}" | sort -g | sed -n "$((rounds / 2 + 1))p")
  mn=$(printf '%s\n' "${n[@]}" | sort -g | sed -n "$((rounds / 2 + 1))p")
  printf '%-70s base %10.3f ms   this tree %10.3f ms   ratio %.2f\n' "${file/#$work/(generated)}" "$mb" "$mn" \
    "$(echo "$mn / $mb" | bc -l)"
done
