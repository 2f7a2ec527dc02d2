#!/usr/bin/env bash
# Installs what nbody needs from the Debian/Ubuntu archive, then configures (Release) and builds into
# build/, and installs the Python module `nbody` into the user's site-packages of Debian's python3. Safe to
# re-run: apt is skipped when everything is installed, and the build is incremental.
#   NBODY_BUILD_DIR=dir      build somewhere else (default: build)
#   NBODY_CMAKE_ARGS="..."   extra configure flags, e.g. "-DNBODY_WITH_CUDA=OFF -DNBODY_NATIVE=OFF"
#   NBODY_DEV_TOOLS=1        also install the development tools: clang with its libFuzzer and sanitizer
#                            runtimes (tests/fuzz/run_fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    cmake ninja-build g++ pkg-config
    libcli11-dev libgtest-dev
    libglfw3-dev libglm-dev libimgui-dev libepoxy-dev libstb-dev
    libegl-dev libgl-dev libegl1-mesa-dev libegl-mesa0 libgl1-mesa-dri
    xvfb xauth xdotool fonts-dejavu-core
    gnuplot-nox clang-format
    ffmpeg
    libhdf5-dev hdf5-tools python3-h5py
    libopenmpi-dev openmpi-bin
    python3-dev pybind11-dev python3-pybind11 python3-numpy
    python3-pytest python3-nbclient python3-nbformat python3-ipykernel python3-matplotlib
)
if [[ "${NBODY_DEV_TOOLS:-0}" == 1 ]]; then
    # clang 14 is Debian 12's; libclang-rt-14-dev holds libFuzzer and clang's ASan/UBSan runtimes
    # (scripts/sanitize.sh uses g++'s, which come with g++).
    packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# CUDA is built where nvcc exists; NVIDIA's packages put it outside PATH.
if ! command -v nvcc >/dev/null && [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]]; then
    export CUDACXX=/usr/local/cuda/bin/nvcc
fi

build_dir="${NBODY_BUILD_DIR:-build}"
generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then generator=(-G Ninja); fi
# shellcheck disable=SC2086  # NBODY_CMAKE_ARGS is a list of flags
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release ${NBODY_CMAKE_ARGS:-}
cmake --build "$build_dir" --parallel "$(nproc)"

# `import nbody` for Debian's /usr/bin/python3: the package into its user site-packages
# (~/.local/lib/python3.X/site-packages/nbody; docs/PYTHON.md). A build without the module skips this.
if [[ -d "$build_dir/python/nbody" ]]; then
    cmake --install "$build_dir" --component python >/dev/null
    echo "setup: installed the Python module nbody for $(grep -m1 '^PYTHON_EXECUTABLE' "$build_dir/python/nbody/_build_info.py" | cut -d'"' -f2)"
fi
