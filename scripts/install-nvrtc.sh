#!/usr/bin/env bash
# Install NVRTC (the CUDA runtime compiler library) from PyPI into a cache folder.
#
# Usage: scripts/install-nvrtc.sh [DIR]
#   DIR defaults to $GPUJIT_NVRTC_DIR, else $HOME/.cache/gpujit/nvrtc-13.0.88.
#
# Needs only python3 + pip: no GPU, no CUDA toolkit, no root. Idempotent: when
# DIR already holds libnvrtc.so.13 and libnvrtc-builtins.so.13.0 nothing is
# downloaded (pip may keep no cache, so the folder itself is the cache).
# On success the LAST line of stdout is the folder holding the libraries;
# point gpujit at it with `export GPUJIT_NVRTC_DIR=<that folder>` (gpujit also
# searches the default DIR by itself). Exits non-zero on any failure.
set -euo pipefail

VERSION="13.0.88"          # CUDA 13.0 (driver 580): keep in step with gpujit/src/nvrtc.rs
PACKAGE="nvidia-cuda-nvrtc==${VERSION}"
DIR="${1:-${GPUJIT_NVRTC_DIR:-${HOME}/.cache/gpujit/nvrtc-${VERSION}}}"
LIB="${DIR}/nvidia/cu13/lib"

have_libs() {
    [[ -f "${LIB}/libnvrtc.so.13" ]] && compgen -G "${LIB}/libnvrtc-builtins.so.13*" >/dev/null
}

if have_libs; then
    echo "install-nvrtc: ${PACKAGE} already installed in ${DIR}" >&2
else
    PY="${PYTHON:-python3}"
    if ! command -v "${PY}" >/dev/null 2>&1; then
        echo "install-nvrtc: error: ${PY} not found (python3 with pip is needed)" >&2
        exit 1
    fi
    echo "install-nvrtc: installing ${PACKAGE} into ${DIR}" >&2
    mkdir -p "$(dirname "${DIR}")"
    # Install into a fresh temporary folder, then move it into place, so that an
    # interrupted install never leaves a half-filled cache behind. All wheels must
    # go in this ONE pip call: a second `pip install --target` into the same
    # folder replaces what the first put there.
    TMP="$(mktemp -d "${DIR}.tmp.XXXXXX")"
    trap 'rm -rf "${TMP}"' EXIT
    "${PY}" -m pip install --disable-pip-version-check --no-input --quiet \
        --no-deps --only-binary=:all: --target "${TMP}" "${PACKAGE}" >&2
    rm -rf "${DIR}"
    mv "${TMP}" "${DIR}"
    trap - EXIT
    if ! have_libs; then
        echo "install-nvrtc: error: ${LIB}/libnvrtc.so.13 missing after installing ${PACKAGE}" >&2
        ls -lR "${DIR}" >&2 || true
        exit 1
    fi
fi
echo "${LIB}"
