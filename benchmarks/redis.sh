#!/usr/bin/env bash
# Installs (Debian's redis-server package) and starts Redis for the benchmarks on 127.0.0.1:6390,
# without persistence. `benchmarks/redis.sh stop` stops it. The Redis benchmark is skipped when no
# server answers, so this is optional.
set -euo pipefail
PORT="${SLUICE_BENCH_REDIS_PORT:-6390}"
if [[ "${1:-start}" == "stop" ]]; then
  redis-cli -h 127.0.0.1 -p "$PORT" shutdown nosave 2>/dev/null || true
  exit 0
fi
if ! command -v redis-server >/dev/null; then
  SUDO=""; [[ "$(id -u)" != 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq redis-server >/dev/null
fi
if redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; then
  echo "redis already answers on 127.0.0.1:$PORT"
  exit 0
fi
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --logfile /tmp/sluice-bench-redis.log --dir /tmp
for _ in $(seq 50); do
  redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG && { echo "redis started on 127.0.0.1:$PORT"; exit 0; }
  sleep 0.1
done
echo "redis did not start; see /tmp/sluice-bench-redis.log" >&2
exit 1
