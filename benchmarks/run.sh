#!/usr/bin/env bash
# The whole comparison in one command, from the repository root:
#   benchmarks/run.sh [--out docs/benchmarks/full-run.md] [other BenchmarkMain options]
# Builds the runnable jar, starts Redis on 127.0.0.1:6390 if it can (the Redis rows are skipped
# otherwise), runs every pass and writes the markdown report (default benchmarks/target/benchmark-report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -pl benchmarks -am package -DskipTests
benchmarks/redis.sh || echo "no Redis: its rows are skipped"
exec java -jar benchmarks/target/benchmarks.jar "$@"
