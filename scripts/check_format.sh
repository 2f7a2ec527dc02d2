#!/usr/bin/env bash
# Fails (exit 1) when a tracked C++/CUDA source differs from what .clang-format makes of it.
# Fix with: git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run -Werror
echo "check_format: every source matches .clang-format"
