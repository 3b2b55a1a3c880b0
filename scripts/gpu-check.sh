#!/usr/bin/env bash
# The GPU check: one command for the first machine with an NVIDIA GPU (under
# 8 minutes on an H200). Without a GPU it runs everything against the CUDA
# driver double (driver-double/): correctness checks are real, timings are
# meaningless (marked "n/a (double)") and sizes are scaled down.
#
# Usage: bash scripts/gpu-check.sh
#   GPU_CHECK_OUT=dir        where outputs go (default target/gpu-check)
#   GPU_CHECK_DETAILS=path   details file (default $GPU_CHECK_OUT/details.txt)
#   GPU_CHECK_PREBUILT=dir   run the binaries that scripts/gpu-bundle.sh built
#                            into dir instead of building (for a GPU machine
#                            without a Rust toolchain); trybuild's tests need
#                            cargo and are skipped there
#   GPU_CHECK_SKIP_SUITE=1   skip the test suite (e.g. for a quick rerun)
#   GPU_CHECK_SUITE_TIMEOUT=s  time limit of the test suite (default 900)
#   GPU_CHECK_BINARY_TIMEOUT=s time limit of one prebuilt test binary (300)
#
# Steps (details of each go to the details file; the table comes last):
#   1. cargo build --release (workspace, all targets), unless prebuilt;
#   2. every example with GPUJIT_BACKEND=cpu and =cuda, outputs compared
#      (timings masked);
#   3. examples/gpu_check.rs: kernels vs hand-written CUDA C, grayscale
#      bandwidth vs a device-to-device copy, launch overhead, first launches,
#      more than 2^31 threads, float-to-int casts, FMA contraction;
#   4. a batch of the fuzzer's kernels (fuzz/) on the GPU (GPUJIT_FUZZ_GPU=1)
#      against every CPU path, the host C and NVRTC;
#   5. the test suite with GPUJIT_BACKEND=cuda (cargo test --workspace
#      --release, or each prebuilt test binary in its package's folder).
# Exits non-zero when a row says FAIL.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
RESULTS="${GPU_CHECK_OUT:-${ROOT}/target/gpu-check}"
mkdir -p "${RESULTS}"
DETAILS="${GPU_CHECK_DETAILS:-${RESULTS}/details.txt}"
PREBUILT="${GPU_CHECK_PREBUILT:+$(cd "${GPU_CHECK_PREBUILT}" && pwd)}"
BIN="${PREBUILT:-${ROOT}/target/release}"
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
    if [[ -z "${PREBUILT}" ]]; then
        # gpujit's NVRTC (the double's setup does this for itself).
        bash scripts/install-nvrtc.sh > /dev/null
    fi
    SMALL=""
else
    MODE="no GPU: driver double (timings meaningless, sizes scaled down)"
    eval "$(bash scripts/driver-double.sh)" || { echo "gpu-check: cannot build the driver double" >&2; exit 1; }
    SMALL=1
fi
log "mode: ${MODE}; $(date -u +%Y-%m-%dT%H:%MZ)"
export GPUJIT_REQUIRE_NVRTC=1
# The host differential needs g++; a GPU machine may lack it (then those
# tests report themselves as ignored).
if command -v g++ > /dev/null || [[ -z "${PREBUILT}" ]]; then
    export GPUJIT_REQUIRE_CXX=1
fi

if [[ -n "${PREBUILT}" ]]; then
    # Test binaries look for files under the checkout they were built in.
    built_in="$(cat "${PREBUILT}/root.txt")"
    if [[ ! -e "${built_in}" ]]; then
        mkdir -p "$(dirname "${built_in}")" && ln -s "${ROOT}" "${built_in}"
    fi
    log "prebuilt binaries from ${PREBUILT} (built in ${built_in})"
    row "release build" "prebuilt (scripts/gpu-bundle.sh)" "builds" "pass"
else
    log "build"
    if cargo build --release --workspace --all-targets >> "${DETAILS}" 2>&1; then
        row "release build" "ok" "builds" "pass"
    else
        row "release build" "failed (details file)" "builds" "FAIL"
    fi
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
        [[ "${name}" == grayscale ]] && extra=("${RESULTS}/gray-${backend}.png")
        if ! GPUJIT_BACKEND="${backend}" RUST_LOG=off "${BIN}/examples/${name}" "${args[@]}" "${extra[@]}" \
            > "${RESULTS}/${name}-${backend}.txt" 2>&1; then
            ok=0
        fi
        { echo "-- ${name} (${backend})"; cat "${RESULTS}/${name}-${backend}.txt"; } >> "${DETAILS}"
    done
    if [[ "${ok}" == 1 ]] && diff <(mask < "${RESULTS}/${name}-cpu.txt") <(mask < "${RESULTS}/${name}-cuda.txt") >> "${DETAILS}"; then
        if [[ "${name}" != grayscale ]] || cmp -s "${RESULTS}/gray-cpu.png" "${RESULTS}/gray-cuda.png"; then
            row "example ${name}: CUDA = CPU" "same output" "same" "pass"
            continue
        fi
    fi
    row "example ${name}: CUDA = CPU" "differs or failed (details file)" "same" "FAIL"
done

log "gpu_check (measurements)"
if GPUJIT_BACKEND=cuda "${BIN}/examples/gpu_check" --details "${RESULTS}/measure.txt" > "${RESULTS}/rows.txt" 2>> "${DETAILS}"; then
    :
else
    row "gpu_check program" "exited with an error (details file)" "runs" "FAIL"
fi
cat "${RESULTS}/measure.txt" >> "${DETAILS}" 2> /dev/null
while IFS= read -r line; do
    [[ "${line}" == ROW\|* ]] && ROWS+=("${line#ROW|}")
done < "${RESULTS}/rows.txt"

# A batch of the fuzzer's kernels (fuzz/, its default seed and count): every
# CPU path, the host C and NVRTC against, on a GPU, the real device
# (GPUJIT_FUZZ_GPU=1), else the driver double.
log "fuzz batch"
fuzz_env=(GPUJIT_FUZZ_SHRINK=0)
[[ -z "${SMALL}" ]] && fuzz_env+=(GPUJIT_FUZZ_GPU=1)
if [[ -n "${PREBUILT}" ]]; then
    read -r _ fuzz_dir fuzz_bin < <(grep '^fuzz ' "${PREBUILT}/tests.txt")
    (cd "${fuzz_dir}" && env -u GPUJIT_BACKEND "${fuzz_env[@]}" timeout 600 "${PREBUILT}/${fuzz_bin}") \
        > "${RESULTS}/fuzz.txt" 2>&1
else
    env -u GPUJIT_BACKEND "${fuzz_env[@]}" timeout 600 cargo test --workspace --release --test fuzz \
        > "${RESULTS}/fuzz.txt" 2>&1
fi
fuzz_status=$?
cat "${RESULTS}/fuzz.txt" >> "${DETAILS}"
fuzz_summary="$(grep -E '^fuzz: [0-9]+ kernels' "${RESULTS}/fuzz.txt" | tail -n 1)"
if [[ "${fuzz_status}" == 0 && -n "${fuzz_summary}" ]]; then fuzz_verdict=pass; else fuzz_verdict=FAIL; fi
row "fuzz batch: $([[ -z "${SMALL}" ]] && echo GPU || echo double) = CPU backend" "${fuzz_summary:-no summary line (details file)}" "0 mismatches" "${fuzz_verdict}"

# The test suite, last (the longest step).
run_suite() {
    if [[ -z "${PREBUILT}" ]]; then
        cargo test --workspace --release --no-fail-fast
        return
    fi
    # Each binary in its package's folder, as cargo runs it; four at a time.
    # trybuild's cases (the diagnostics binary) need cargo and rustc: not run here.
    local failed=0
    if grep -q '^diagnostics ' "${PREBUILT}/tests.txt"; then
        echo "test result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out (diagnostics: needs cargo)"
    fi
    grep -v '^diagnostics ' "${PREBUILT}/tests.txt" > "${RESULTS}/suite-list.txt"
    xargs -P 4 -L 1 sh -c 'cd "$2" && timeout "${GPU_CHECK_BINARY_TIMEOUT:-300}" "$4/$3" > "$5/suite-$1.txt" 2>&1; echo "$1 exit $?" >> "$5/suite-exits.txt"' _ \
        < <(sed "s|\$| ${PREBUILT} ${RESULTS}|" "${RESULTS}/suite-list.txt")
    for f in "${RESULTS}"/suite-*.txt; do
        [[ "${f}" == */suite-list.txt || "${f}" == */suite-exits.txt ]] && continue
        echo "---- $(basename "${f}" .txt)"
        cat "${f}"
    done
    cat "${RESULTS}/suite-exits.txt"
    ! grep -qv ' exit 0$' "${RESULTS}/suite-exits.txt" || failed=1
    return "${failed}"
}
if [[ "${GPU_CHECK_SKIP_SUITE:-}" == 1 ]]; then
    row "test suite, GPUJIT_BACKEND=cuda" "skipped (GPU_CHECK_SKIP_SUITE=1)" "all pass" "skipped"
else
    log "test suite with GPUJIT_BACKEND=cuda"
    # As .ci/run's CUDA pass: no skip list (CPU-backend-only tests report
    # themselves as ignored). A time limit keeps the check bounded if a test
    # hangs on the device.
    rm -f "${RESULTS}"/suite-*.txt
    export -f run_suite
    export PREBUILT RESULTS
    if GPUJIT_BACKEND=cuda GPUJIT_REQUIRE_DRIVER_DOUBLE="${SMALL}" timeout "${GPU_CHECK_SUITE_TIMEOUT:-900}" \
        bash -c run_suite > "${RESULTS}/suite.txt" 2>&1; then
        verdict=pass
    else
        verdict=FAIL
    fi
    cat "${RESULTS}/suite.txt" >> "${DETAILS}"
    summary="$(grep -E '^test result:' "${RESULTS}/suite.txt" | awk '{p+=$4; f+=$6; i+=$8} END {printf "%d passed, %d failed, %d ignored", p, f, i}')"
    row "test suite, GPUJIT_BACKEND=cuda" "${summary}" "all pass" "${verdict}"
fi

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
