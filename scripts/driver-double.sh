#!/usr/bin/env bash
# Build the CUDA driver double (driver-double/, test-only) and print the
# environment that makes every process started with it use the double as
# libcuda.so and libnvrtc.so.
#
# Usage: eval "$(bash scripts/driver-double.sh)"   then e.g. cargo test
#
# Needs: cargo, g++ (C++20) and NVRTC (bash scripts/install-nvrtc.sh), as
# .ci/run installs them. Prints `export` lines on stdout (everything else goes
# to stderr); exits non-zero on any failure.
#   LD_LIBRARY_PATH           a folder with libcuda.so, libcuda.so.1 and
#                             libnvrtc.so -> the double, plus the real
#                             libnvrtc-builtins beside them
#   GPUJIT_NVRTC_PATH         <that folder>/libnvrtc.so (gpujit's NVRTC loader)
#   GPUJIT_DOUBLE_REAL_NVRTC  the real NVRTC the double forwards to
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
cargo build --release -p gpujit-driver-double >&2
TARGET="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
SO="${TARGET}/release/libgpujit_driver_double.so"
[[ -f "${SO}" ]] || { echo "driver-double: error: ${SO} was not built" >&2; exit 1; }

REAL="${GPUJIT_DOUBLE_REAL_NVRTC:-}"
if [[ -z "${REAL}" ]]; then
    REAL="$(bash "${ROOT}/scripts/install-nvrtc.sh" | tail -n 1)/libnvrtc.so.13"
fi
[[ -f "${REAL}" ]] || { echo "driver-double: error: real NVRTC ${REAL} not found" >&2; exit 1; }
REAL_DIR="$(dirname "$(readlink -f "${REAL}")")"

DIR="${TARGET}/driver-double"
mkdir -p "${DIR}"
for name in libcuda.so libcuda.so.1 libnvrtc.so; do
    ln -sfn "${SO}" "${DIR}/${name}"
done
for builtins in "${REAL_DIR}"/libnvrtc-builtins.so.*; do
    [[ -e "${builtins}" ]] && ln -sfn "${builtins}" "${DIR}/$(basename "${builtins}")"
done

echo "export LD_LIBRARY_PATH=\"${DIR}\${LD_LIBRARY_PATH:+:\${LD_LIBRARY_PATH}}\""
echo "export GPUJIT_NVRTC_PATH=\"${DIR}/libnvrtc.so\""
echo "export GPUJIT_DOUBLE_REAL_NVRTC=\"${REAL}\""
