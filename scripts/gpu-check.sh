#!/usr/bin/env bash
# The GPU check: one command for the first machine with an NVIDIA GPU (under
# 8 minutes on an H200). Without a GPU it runs everything against the CUDA
# driver double (driver-double/): correctness checks are real, timings are
# meaningless (marked "n/a (double)") and sizes are scaled down.
#
# Usage: bash scripts/gpu-check.sh
#   GPU_CHECK_DETAILS=path   details file (default target/gpu-check/details.txt)
#   GPU_CHECK_SKIP_SUITE=1   skip the test suite (e.g. for a quick rerun)
#   GPU_CHECK_SUITE_TIMEOUT=s  time limit of the test suite (default 900)
#
# Steps (details of each go to the details file; the table comes last):
#   1. cargo build --release (workspace, all targets);
#   2. cargo test --workspace --release with GPUJIT_BACKEND=cuda;
#   3. every example with GPUJIT_BACKEND=cpu and =cuda, outputs compared
#      (timings masked);
#   4. examples/gpu_check.rs: kernels vs hand-written CUDA C, grayscale
#      bandwidth vs a device-to-device copy, launch overhead, first launches,
#      more than 2^31 threads, float-to-int casts, FMA contraction.
# Exits non-zero when a row says FAIL.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
OUT="${ROOT}/target/gpu-check"
mkdir -p "${OUT}"
DETAILS="${GPU_CHECK_DETAILS:-${OUT}/details.txt}"
: > "${DETAILS}"
ROWS=()
row() { ROWS+=("$1|$2|$3|$4"); }
START=$(date +%s)
log() {
    echo "gpu-check: [$(( $(date +%s) - START )) s] $*" >&2
    echo "== [$(( $(date +%s) - START )) s] $*" >> "${DETAILS}"
}

if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
    MODE="GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
    # gpujit's NVRTC (the double's setup does this for itself).
    bash scripts/install-nvrtc.sh > /dev/null
    SMALL=""
else
    MODE="no GPU: driver double (timings meaningless, sizes scaled down)"
    eval "$(bash scripts/driver-double.sh)" || { echo "gpu-check: cannot build the driver double" >&2; exit 1; }
    SMALL=1
fi
log "mode: ${MODE}; $(date -u +%Y-%m-%dT%H:%MZ)"
export GPUJIT_REQUIRE_NVRTC=1 GPUJIT_REQUIRE_CXX=1

log "build"
if cargo build --release --workspace --all-targets >> "${DETAILS}" 2>&1; then
    row "release build" "ok" "builds" "pass"
else
    row "release build" "failed (details file)" "builds" "FAIL"
fi

if [[ "${GPU_CHECK_SKIP_SUITE:-}" == 1 ]]; then
    row "test suite, GPUJIT_BACKEND=cuda" "skipped (GPU_CHECK_SKIP_SUITE=1)" "all pass" "skipped"
else
    log "test suite with GPUJIT_BACKEND=cuda"
    # As .ci/run's CUDA pass: no skip list (CPU-backend-only tests report
    # themselves as ignored). A time limit keeps the check bounded if a test
    # hangs on the device.
    if GPUJIT_BACKEND=cuda GPUJIT_REQUIRE_DRIVER_DOUBLE="${SMALL}" timeout "${GPU_CHECK_SUITE_TIMEOUT:-900}" \
        cargo test --workspace --release --no-fail-fast > "${OUT}/suite.txt" 2>&1; then
        verdict=pass
    else
        verdict=FAIL
    fi
    cat "${OUT}/suite.txt" >> "${DETAILS}"
    summary="$(grep -E '^test result:' "${OUT}/suite.txt" | awk '{p+=$4; f+=$6; i+=$8} END {printf "%d passed, %d failed, %d ignored", p, f, i}')"
    row "test suite, GPUJIT_BACKEND=cuda" "${summary}" "all pass" "${verdict}"
fi

# Timings and other run-dependent numbers, masked before comparing outputs.
mask() {
    grep -v -e '^backend:' -e 'speed ratio' \
        | sed -E 's/[0-9]+(\.[0-9]+)?(e-?[0-9]+)? ?(ms|µs|GFLOP\/s|GB\/s)/<t>/g; s/\([0-9.e-]+ GB\/s\)/<t>/g; s/\([-0-9.]+ (GB|GFLOP)\/s\)/<t>/g; s/gray-(cpu|cuda)\.png/gray-<backend>.png/g; s/ on (CPU|CUDA) backend \(.*\)$/ on <backend>/'
}
log "examples, CPU backend vs CUDA"
for example in examples/*.rs; do
    name="$(basename "${example}" .rs)"
    # cpu_bench measures the CPU backend only (and refuses another).
    [[ "${name}" == gpu_check || "${name}" == cpu_bench ]] && continue
    args=()
    case "${name}" in
        grayscale) args=(examples/data/astronaut.png) ;;
        matmul | streams) [[ -n "${SMALL}" ]] && args=(64) ;;
    esac
    ok=1
    for backend in cpu cuda; do
        extra=()
        [[ "${name}" == grayscale ]] && extra=("${OUT}/gray-${backend}.png")
        if ! GPUJIT_BACKEND="${backend}" RUST_LOG=off "target/release/examples/${name}" "${args[@]}" "${extra[@]}" \
            > "${OUT}/${name}-${backend}.txt" 2>&1; then
            ok=0
        fi
        { echo "-- ${name} (${backend})"; cat "${OUT}/${name}-${backend}.txt"; } >> "${DETAILS}"
    done
    if [[ "${ok}" == 1 ]] && diff <(mask < "${OUT}/${name}-cpu.txt") <(mask < "${OUT}/${name}-cuda.txt") >> "${DETAILS}"; then
        if [[ "${name}" != grayscale ]] || cmp -s "${OUT}/gray-cpu.png" "${OUT}/gray-cuda.png"; then
            row "example ${name}: CUDA = CPU" "same output" "same" "pass"
            continue
        fi
    fi
    row "example ${name}: CUDA = CPU" "differs or failed (details file)" "same" "FAIL"
done

log "gpu_check (measurements)"
if GPUJIT_BACKEND=cuda target/release/examples/gpu_check --details "${OUT}/measure.txt" > "${OUT}/rows.txt" 2>> "${DETAILS}"; then
    :
else
    row "gpu_check program" "exited with an error (details file)" "runs" "FAIL"
fi
cat "${OUT}/measure.txt" >> "${DETAILS}" 2> /dev/null
while IFS= read -r line; do
    [[ "${line}" == ROW\|* ]] && ROWS+=("${line#ROW|}")
done < "${OUT}/rows.txt"

# The table, last.
echo
echo "GPU check: ${MODE}; $(( $(date +%s) - START )) s; details: ${DETAILS}"
failed=0
for r in "${ROWS[@]}"; do
    [[ "${r}" == *"|FAIL" ]] && failed=1
done
table() {
    echo "check|result|goal|verdict"
    printf '%s\n' "${ROWS[@]}"
}
if command -v column > /dev/null; then table | column -t -s '|'; else table; fi
exit "${failed}"
