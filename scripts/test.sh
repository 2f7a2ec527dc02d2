#!/usr/bin/env bash
# Runs every test: sets up and builds if needed (see setup.sh), then the whole CTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
build_dir="${NBODY_BUILD_DIR:-build}"
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)"
