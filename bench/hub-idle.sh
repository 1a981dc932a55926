#!/usr/bin/env bash
# Measures the tray app's idle cost: CPU time used and resident memory over
# a minute with nothing to do, under Xvfb. Run it through `make bench-idle`.
set -euo pipefail
pygate=${1:-bin/pygate}
seconds=${2:-60}
home=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$home"' EXIT
PYGATE_HOME=$home "$pygate" tray 2>/dev/null &
pid=$!
sleep 5 # let it settle after start
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
before=$(cpu)
sleep "$seconds"
after=$(cpu)
used=$(( after - before ))
echo "idle for ${seconds} s: CPU time $(awk -v u="$used" -v t="$ticks" 'BEGIN {printf "%.2f s", u / t}') ($(awk -v u="$used" -v t="$ticks" -v s="$seconds" 'BEGIN {printf "%.2f%%", 100 * u / t / s}') of one core), RSS $(( $(rss) / 1024 )) MiB"
