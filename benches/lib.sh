# Shared by the benchmarks (sourced): medians of repeated runs, so that one disturbed run
# (another process on the machine, a checkpoint in PostgreSQL) does not become the figure.

# median / range: of the numbers on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }
# to_ms: wrk's durations (812.00us, 1.53ms, 1.02s) in milliseconds.
to_ms() { sed -E 's/us$/ 0.001/; s/ms$/ 1/; s/([0-9.])s$/\1 1000/' | awk '{printf "%.2f\n", $1*$2}'; }

# wrk_median SECONDS WRK-ARGS... URL: a 1 s warm-up, then BENCH_REPEAT (default 3) runs of
# SECONDS; sets RPS, P50, P99 (medians of the runs, milliseconds) and RPS_RANGE, P99_RANGE.
# Fails on any answer other than 2xx.
wrk_median() {
  local secs=$1 out rps=() p50=() p99=()
  shift
  wrk -d1s "$@" >/dev/null
  for _ in $(seq 1 "${BENCH_REPEAT:-3}"); do
    out=$(wrk -d"${secs}s" --latency "$@")
    if grep -q "Non-2xx" <<<"$out"; then
      echo "non-2xx answers:" >&2
      echo "$out" >&2
      return 1
    fi
    rps+=("$(awk '/Requests\/sec/ {print $2}' <<<"$out")")
    p50+=("$(awk '$1=="50%" {print $2}' <<<"$out" | to_ms)")
    p99+=("$(awk '$1=="99%" {print $2}' <<<"$out" | to_ms)")
  done
  RPS=$(printf '%s\n' "${rps[@]}" | median)
  RPS_RANGE=$(printf '%s\n' "${rps[@]}" | range)
  P50=$(printf '%s\n' "${p50[@]}" | median)
  P99=$(printf '%s\n' "${p99[@]}" | median)
  P99_RANGE=$(printf '%s\n' "${p99[@]}" | range)
}
