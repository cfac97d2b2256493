#!/usr/bin/env bash
# FlexLog's side of the Kafka peer harness, in the harness's shape (flexlog-bench/README.md, section
# "`harness/run.sh`"): a fresh dev cluster, warmed until its JIT compilers go quiet (as the harness
# warms Kafka's brokers), then the harness's four phases with FlexLog's own tools:
#   a. append latency at low load   bench produce --throughput 1000 linger.ms=0, 20 s (first 5000 excluded)
#   b. max append throughput        bench produce linger.ms=5 batch.size=65536, unthrottled
#   c. end-to-end latency           bench consume --mode roundtrip, 10000 sequential round trips
#   d. catch-up read throughput     bench consume --mode catchup over color ref, (a) + (b) records
# For every phase it prints the wall time, the cores used by everyone, by the dev cluster and the
# tool JVM, by other processes, by the dev cluster's JIT compilers and by other VMs (steal); a phase
# during which other processes used QUIET_MAX cores or more, or the hypervisor stole STEAL_MAX, is
# repeated (up to PHASE_TRIES) and marked CONTAMINATED (exit status 3) if it stays so.
#
# Usage: flexlog-bench/harness/run.sh     (from the repository root, after a build; 5-8 minutes)
# Knobs (environment): PORT (7470), PM_BYTES (4GiB), DATA (a temp dir), B_RECORDS (1500000),
#   B_WARMUP (150000), C_RECORDS (10000), RECORD_SIZE (1024), WARMUP_RECORDS (300000),
#   QUIET_MAX (0.15), STEAL_MAX (0.1), QUIET_WAIT (300), PHASE_TRIES (2), DURABILITY (process),
#   KEEP_DATA (0: the dev cluster's data directory is deleted at the end), TOOL_JAVA_OPTS (empty: JVM
#   flags for the tool JVMs only, not the dev cluster, e.g. -XX:TieredStopAtLevel=1; the Kafka side
#   takes the same through JAVA=flexlog-bench/harness/kafka-tool-java, see the README).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PORT=${PORT:-7470}; ADMIN=$((PORT + 20)); BOOT=127.0.0.1:$PORT
PM_BYTES=${PM_BYTES:-4GiB}; DURABILITY=${DURABILITY:-process}
DATA=${DATA:-${TMPDIR:-/tmp}/flexlog-harness/data}
RES=${TMPDIR:-/tmp}/flexlog-harness/results/$(date +%Y%m%d-%H%M%S)
RECORD_SIZE=${RECORD_SIZE:-1024}
A_RATE=1000; A_SECS=20; A_WARMUP=5000; A_N=$((A_RATE * A_SECS + A_WARMUP))
B_RECORDS=${B_RECORDS:-1500000}; B_WARMUP=${B_WARMUP:-150000}
C_RECORDS=${C_RECORDS:-10000}
WARMUP_RECORDS=${WARMUP_RECORDS:-300000}
WARMUP_LAT_SECS=10; WARMUP_LAT_ROUNDS=8; JIT_SETTLE_MAX=60
QUIET_MAX=${QUIET_MAX:-0.15}; STEAL_MAX=${STEAL_MAX:-0.1}; QUIET_WAIT=${QUIET_WAIT:-300}; PHASE_TRIES=${PHASE_TRIES:-2}
FLEXLOG=("$ROOT/bin/flexlog")
TOOL=("${FLEXLOG[@]}")  # the tool JVMs (bench produce, bench consume)
TOOL_JAVA_OPTS=${TOOL_JAVA_OPTS:-}
[[ -z $TOOL_JAVA_OPTS ]] || TOOL=(env "FLEXLOG_JAVA_OPTS=-Xms256m -Xmx1g $TOOL_JAVA_OPTS" "${FLEXLOG[@]}")
export FLEXLOG_NO_REBUILD=1

HZ=$(getconf CLK_TCK)
DEV_PID=""
log() { echo "[$(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
sys_busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
sys_steal() { awk '/^cpu /{print $9}' /proc/stat; }  # CPU the hypervisor gave to other VMs
kthread_ticks() {  # kernel threads (writeback, softirqs) work for us too: not counted as "other"
  cat /proc/[0-9]*/stat 2>/dev/null | awk '{ pid = $1; sub(/^.*\) /, "") } pid == 2 || $2 == 2 { t += $12 + $13 } END { print t + 0 }'; }
jit_ticks() {  # the dev cluster's C1/C2 compiler threads
  cat /proc/"$DEV_PID"/task/*/stat 2>/dev/null \
    | awk '{ c = ($0 ~ /^[0-9]+ \(C[12] CompilerThre/); sub(/^.*\) /, ""); if (c) t += $12 + $13 } END { print t + 0 }'; }
own_ticks() {  # this script with its reaped children (the tool JVMs) and the dev cluster
  echo $(( $(awk '{print $14 + $15 + $16 + $17}' "/proc/$$/stat") + $(ticks "$DEV_PID") )); }
phase_begin() { PB_T=$(date +%s.%N); PB_B=$(sys_busy); PB_O=$(own_ticks); PB_K=$(kthread_ticks); PB_J=$(jit_ticks); PB_S=$(sys_steal); }
phase_end() {  # prints "name wall_s all_cores own_cores other_cores cluster_jit_cores steal_cores"
  local t b o k j st; t=$(date +%s.%N); b=$(sys_busy); o=$(own_ticks); k=$(kthread_ticks); j=$(jit_ticks); st=$(sys_steal)
  awk -v n="$1" -v t0="$PB_T" -v t1="$t" -v b=$((b - PB_B)) -v o=$((o - PB_O)) -v k=$((k - PB_K)) \
      -v j=$((j - PB_J)) -v st=$((st - PB_S)) -v hz="$HZ" 'BEGIN { w = t1 - t0; x = (b - o - k) / hz / w; if (x < 0) x = 0
    printf "%s %.1f %.2f %.2f %.2f %.2f %.2f\n", n, w, b / hz / w, o / hz / w, x, j / hz / w, st / hz / w }'; }
wait_quiet() {  # until other processes use < QUIET_MAX cores for 6 s, or QUIET_WAIT is used up
  local quiet=0 r other
  while ((quiet < 6)); do
    phase_begin; sleep 3; r=$(phase_end quiet); other=$(cut -d' ' -f5 <<<"$r")
    if awk -v x="$other" -v m="$QUIET_MAX" 'BEGIN{exit !(x < m)}'; then quiet=$((quiet + 3)); continue; fi
    quiet=0
    ((SECONDS < QUIET_DEADLINE)) || { log "WARNING: other processes use $other cores; measuring anyway"; return 0; }
    sleep 2
  done
}
run_phase() {  # run_phase NAME FUNCTION: repeats a phase other processes disturbed
  local try r other steal
  for ((try = 1; try <= PHASE_TRIES; try++)); do
    wait_quiet; phase_begin; "$2"; r=$(phase_end "$1"); other=$(cut -d' ' -f5 <<<"$r"); steal=$(cut -d' ' -f7 <<<"$r")
    if awk -v x="$other" -v m="$QUIET_MAX" -v s="$steal" -v sm="$STEAL_MAX" 'BEGIN{exit !(x < m && s < sm)}' \
        || ((try == PHASE_TRIES)); then
      echo "$r" >>"$RES/load.txt"; return 0
    fi
    log "($1) disturbed: other processes used $other cores, VM steal $steal cores; repeating it"
  done
}
stop_dev() {  # and delete its logs (3 x PM_BYTES) unless KEEP_DATA=1
  if [[ -n $DEV_PID ]]; then
    kill "$DEV_PID" 2>/dev/null || true
    while kill -0 "$DEV_PID" 2>/dev/null; do sleep 0.5; done
  fi
  [[ ${KEEP_DATA:-0} == 1 ]] || rm -rf "$DATA"
}
trap stop_dev EXIT

produce() {  # produce COLOR RECORDS WARMUP THROUGHPUT PROPS... > output
  "${TOOL[@]}" bench produce --bootstrap "$BOOT" --color "$1" --num-records "$2" --warmup-records "$3" \
    --record-size "$RECORD_SIZE" --throughput "$4" --producer-props "${@:5}"; }
jit_cores_over() {  # jit_cores_over SECONDS: the cluster's JIT cores over a sleep
  local j0; j0=$(jit_ticks); sleep "$1"; awk -v t=$(($(jit_ticks) - j0)) -v hz="$HZ" -v w="$1" 'BEGIN{printf "%.2f", t / hz / w}'; }

phase_warmup() {  # the harness's warm-up: every path the phases use, until the JIT is quiet
  log "warm-up (not reported): $WARMUP_RECORDS records unthrottled, rounds of ${WARMUP_LAT_SECS}s at $A_RATE/s, catch-up, 2000 round trips"
  produce warmup "$WARMUP_RECORDS" 0 -1 linger.ms=5 batch.size=65536 >"$RES/0-warmup.out" 2>&1
  WARM_N=$((WARM_N + WARMUP_RECORDS))
  local round j0 jc=""
  for ((round = 1; round <= WARMUP_LAT_ROUNDS; round++)); do
    j0=$(jit_ticks)
    produce warmup $((A_RATE * WARMUP_LAT_SECS)) 0 "$A_RATE" linger.ms=0 >>"$RES/0-warmup.out" 2>&1
    WARM_N=$((WARM_N + A_RATE * WARMUP_LAT_SECS))
    jc+="$(awk -v t=$(($(jit_ticks) - j0)) -v hz="$HZ" -v w="$WARMUP_LAT_SECS" 'BEGIN{printf "%.2f", t / hz / w}') "
    (( ($(jit_ticks) - j0) * 100 < 5 * HZ * WARMUP_LAT_SECS )) && break
  done
  log "  low-rate rounds: cluster JIT cores per round: $jc"
  "${TOOL[@]}" bench consume --mode catchup --bootstrap "$BOOT" --admin "127.0.0.1:$ADMIN" \
    --existing-color warmup --records "$WARM_N" \
    --record-bytes "$RECORD_SIZE" >>"$RES/0-warmup.out" 2>&1 || log "  warm-up catch-up failed (see 0-warmup.out)"
  "${TOOL[@]}" bench consume --mode roundtrip --bootstrap "$BOOT" --admin "127.0.0.1:$ADMIN" \
    --existing-color warmup --round-trips 2000 --record-bytes "$RECORD_SIZE" >>"$RES/0-warmup.out" 2>&1
  WARM_N=$((WARM_N + 2000))
  local i c
  for ((i = 0; i < JIT_SETTLE_MAX / 5; i++)); do
    c=$(jit_cores_over 5); awk -v c="$c" 'BEGIN{exit !(c < 0.05)}' && break
  done
  log "  cluster JIT settled after $((i * 5 + 5)) s (last 5 s: $c cores)"
}
phase_a() {
  log "(a) $A_N records at $A_RATE/s, linger.ms=0 (first $A_WARMUP excluded)"
  produce ref "$A_N" "$A_WARMUP" "$A_RATE" linger.ms=0 >"$RES/a-latency.out" 2>&1 || die "(a) failed"
  grep 'records sent' "$RES/a-latency.out" | tail -1 >&2; }
phase_b() {
  log "(b) $B_RECORDS records unthrottled, linger.ms=5 batch.size=65536 (first $B_WARMUP excluded)"
  produce ref "$B_RECORDS" "$B_WARMUP" -1 linger.ms=5 batch.size=65536 >"$RES/b-throughput.out" 2>&1 || die "(b) failed"
  grep 'records sent' "$RES/b-throughput.out" | tail -1 >&2; }
phase_c() {
  log "(c) $C_RECORDS sequential round trips of ${RECORD_SIZE} B (fresh JVM, no client warm-up)"
  "${TOOL[@]}" bench consume --mode roundtrip --bootstrap "$BOOT" --admin "127.0.0.1:$ADMIN" \
    --existing-color ref-e2e --round-trips "$C_RECORDS" --record-bytes "$RECORD_SIZE" >"$RES/c-e2e.out" 2>&1 || die "(c) failed"
  grep -E '^(round trips|parts|over 1 ms)' "$RES/c-e2e.out" >&2 || tail -3 "$RES/c-e2e.out" >&2; }
phase_d() {
  # The first (a) + (b) records, as Kafka's side reads them, even when a disturbed phase was repeated
  # and the color holds more.
  local n; n=$((A_N + B_RECORDS))
  log "(d) catch-up read of color ref from SN 0 ($n records of $((A_N * PHASE_A_RUNS + B_RECORDS * PHASE_B_RUNS)))"
  "${TOOL[@]}" bench consume --mode catchup --bootstrap "$BOOT" --admin "127.0.0.1:$ADMIN" \
    --existing-color ref --records "$n" --record-bytes "$RECORD_SIZE" >"$RES/d-consume.out" 2>&1 || die "(d) failed"
  grep '^catch-up' "$RES/d-consume.out" >&2; }

mkdir -p "$RES"; rm -rf "$DATA"; mkdir -p "$DATA"
[[ -x ${FLEXLOG[0]} ]] || die "run from a built checkout (bin/flexlog missing)"
QUIET_DEADLINE=$((SECONDS + QUIET_WAIT))
log "results in $RES"
"${FLEXLOG[@]}" dev --port "$PORT" --admin-port "$ADMIN" --data "$DATA" --pm-bytes "$PM_BYTES" \
  --durability "$DURABILITY" >"$RES/dev.log" 2>&1 &
DEV_PID=$!
for ((i = 0; i < 120; i++)); do grep -q "cluster ready" "$RES/dev.log" && break; sleep 1; done
grep -q "cluster ready" "$RES/dev.log" || die "dev cluster did not start: $(tail -3 "$RES/dev.log")"
DEV_PID=$(pgrep -f "FlexLogCli dev --port $PORT" | head -1)
for c in ref ref-e2e warmup; do
  "${FLEXLOG[@]}" colors add --admin "127.0.0.1:$ADMIN" --name "$c" --parent global >/dev/null
done
log "dev cluster pid $DEV_PID (llpl engine if available, durability $DURABILITY, pm-bytes $PM_BYTES per replica); tool JVMs: ${TOOL_JAVA_OPTS:-default JIT flags}"
: >"$RES/load.txt"
WARM_N=0
run_phase warmup phase_warmup
PHASE_A_RUNS=0; PHASE_B_RUNS=0
count_a() { phase_a; PHASE_A_RUNS=$((PHASE_A_RUNS + 1)); }
count_b() { phase_b; PHASE_B_RUNS=$((PHASE_B_RUNS + 1)); }
run_phase a count_a
run_phase b count_b
run_phase c phase_c
run_phase d phase_d
{
  echo "tool JVM flags: -Xms256m -Xmx1g ${TOOL_JAVA_OPTS:-(JIT defaults)}"
  # Pairs are comparable only at a like distance from the machine's start (flexlog-bench/README.md,
  # "Three pairs later the same day").
  echo "host up since $(uptime -s), $(($(cut -d. -f1 /proc/uptime) / 60)) min before this summary"
  echo "phase  wall_s  all_cores  own_cores  other_cores  cluster_jit_cores  steal_cores"
  column -t "$RES/load.txt"
  echo "(a) $(grep 'records sent' "$RES/a-latency.out" | tail -1)"
  echo "(b) $(grep 'records sent' "$RES/b-throughput.out" | tail -1)"
  echo "(c) $(grep -E '^(round trips|parts|over 1 ms)' "$RES/c-e2e.out" | tr '\n' ' ')"
  echo "(d) $(grep '^catch-up' "$RES/d-consume.out")"
} | tee "$RES/results.txt"
awk -v m="$QUIET_MAX" -v sm="$STEAL_MAX" '$1 != "warmup" && ($5 >= m || $7 >= sm) {
  print "CONTAMINATED: phase " $1 " ran beside " $5 " cores of other load and " $7 " cores of VM steal"; bad = 1
} END { exit bad ? 3 : 0 }' "$RES/load.txt"
