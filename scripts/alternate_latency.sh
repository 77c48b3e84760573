#!/usr/bin/env bash
# Float vs int8 latency of one model's bench artifacts, the configurations
# alternated round after round so that a noisy host's slow phases hit them
# alike; prints each configuration's minimum and its median per round.
# (`make bench` takes medians of two rounds: on a shared VM whose speed
# drifts by 30 % within minutes, ratios of alternated minimums are the
# steadier measure.)
#
#   scripts/alternate_latency.sh <artifacts dir> [rounds (6)] [threads (1)]
#
# <artifacts dir>: out/<bench run>/artifacts/<model> from a `make bench` /
# `python -m torchedge.bench` run that prepared torchedge_portable.pte,
# torchedge_int8.pte and torchedge_int8_w7.pte. Configurations: float
# (optimized kernels), int8, and int8 with 7-bit weights with the int8
# Winograd off (TORCHEDGE_WINOGRAD=0) and on.
set -euo pipefail
dir=${1:?usage: $0 <artifacts dir> [rounds] [threads]}
rounds=${2:-6}
threads=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
run=$root/build/torchedge_run
[[ -x $run ]] || { echo "$run not built (make demo builds it)" >&2; exit 1; }
for f in torchedge_portable torchedge_int8 torchedge_int8_w7; do
  [[ -f $dir/$f.pte ]] || { echo "$dir/$f.pte missing" >&2; exit 1; }
done

for ((r = 0; r < rounds; ++r)); do
  for cfg in float int8 int8_w7_winograd_off int8_w7; do
    case $cfg in
      float) file=torchedge_portable winograd=1 ;;
      int8) file=torchedge_int8 winograd=1 ;;
      int8_w7_winograd_off) file=torchedge_int8_w7 winograd=0 ;;
      int8_w7) file=torchedge_int8_w7 winograd=1 ;;
    esac
    line=$(TORCHEDGE_WINOGRAD=$winograd "$run" "$dir/$file.pte" --input "$dir/input_0.npy" \
             --threads "$threads" --warmup-ms 200 --iterations 30 --kernels optimized 2>&1 |
           grep -oE 'min [0-9.]+ ms, median [0-9.]+') || { echo "$cfg: run failed" >&2; exit 1; }
    echo "$cfg $line"
  done
done | awk '{ k = $1; n[k]++; med[k] = med[k] " " $6; if (!(k in best) || $3 < best[k]) best[k] = $3 }
            END { for (k in n) printf "%-22s min %8.3f ms   medians%s\n", k, best[k], med[k] }' | sort
