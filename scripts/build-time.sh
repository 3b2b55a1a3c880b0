#!/usr/bin/env bash
# Release build time per additional kernel (issue #7's goal: <= 0.1 s per
# additional kernel in a crate of 20 kernels).
#
# Generates a scratch binary crate under target/build-time/ that depends on
# gpujit by path, with 1 and with 20 small distinct kernels (each launched
# once from main, so each is instantiated as a user's would be). After one
# warm build of the dependencies, it rebuilds only the scratch crate, ROUNDS
# times each way (default 3, or $1), and prints the medians and
# (t20 - t1) / 19. Each build runs the binary once, which checks its results.
#
# KIND (default plain) picks the kernels: `plain` is 20 one-line
# element-wise kernels; `mixed` cycles through an element-wise kernel, a
# grid-stride loop, a shared-memory kernel with syncthreads() (split into
# parts, each emitted twice) and a per-thread loop over an array (the
# interchanged lockstep loop), so every CPU execution path is instantiated.
#
# Run: bash scripts/build-time.sh [ROUNDS] [KIND]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$(pwd)"
ROUNDS="${1:-3}"
KIND="${2:-plain}"
case "${KIND}" in
plain | mixed) ;;
*)
    echo "unknown KIND ${KIND}: use plain or mixed" >&2
    exit 2
    ;;
esac
CRATE="${REPO}/target/build-time/crate"
# Its own target folder: the workspace's release artefacts are not disturbed.
export CARGO_TARGET_DIR="${REPO}/target/build-time/target"
mkdir -p "${CRATE}/src"

cat > "${CRATE}/Cargo.toml" <<EOF
[package]
name = "gpujit-build-time"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
gpujit = { path = "${REPO}/gpujit" }

# Not a member of the repository's workspace.
[workspace]
EOF
# The repository's versions of every dependency.
cp "${REPO}/Cargo.lock" "${CRATE}/Cargo.lock"

# Prints kernel $1 (salt $2): with x all ones, it sets y[63] = $1 + $2.
kernel() {
    local k="$1" salt="$2" form=0
    [[ "${KIND}" == mixed ]] && form=$((k % 4))
    echo
    echo "#[gpu_kernel]"
    echo "fn kernel_${k}(x: &[f32], y: &mut [f32]) {"
    case "${form}" in
    0) cat <<EOF
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i] * ${k}.0 + ${salt}.0;
    }
EOF
        ;;
    1) cat <<EOF
    for i in (grid(1)..y.len()).step_by(gridsize(1)) {
        y[i] = x[i] * ${k}.0 + ${salt}.0;
    }
EOF
        ;;
    2) cat <<EOF
    let cache = shared_array::<[f32; 64]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    if i < y.len() {
        y[i] = cache[63 - tid] * ${k}.0 + ${salt}.0;
    }
EOF
        ;;
    3) cat <<EOF
    let i = grid(1);
    if i < y.len() {
        let mut acc: f32 = 0.0;
        for j in 0..x.len() {
            acc += x[j];
        }
        y[i] = acc / 64.0 * ${k}.0 + ${salt}.0;
    }
EOF
        ;;
    esac
    echo "}"
}

# Writes src/main.rs with $1 kernels; $2 makes the text differ between builds.
gen() {
    local n="$1" salt="$2"
    {
        echo "// kernels: ${n}, build ${salt}"
        echo "use gpujit::prelude::*;"
        for ((k = 0; k < n; k++)); do
            kernel "${k}" "${salt}"
        done
        echo
        echo "fn main() -> Result<(), gpujit::Error> {"
        echo "    let x = gpujit::to_device(&[1.0f32; 64][..])?;"
        echo "    let mut y = gpujit::zeros::<f32>(64)?;"
        for ((k = 0; k < n; k++)); do
            echo "    kernel_${k}![1, 64](&x, &mut y)?;"
            echo "    assert_eq!(y.copy_to_host()?[63], ${k}.0 + ${salt}.0);"
        done
        echo "    Ok(())"
        echo "}"
    } > "${CRATE}/src/main.rs"
}

# Seconds of `cargo build --release` of the scratch crate alone.
build() {
    local start end
    start=$(date +%s.%N)
    cargo build --release --quiet --manifest-path "${CRATE}/Cargo.toml"
    end=$(date +%s.%N)
    "${CARGO_TARGET_DIR}/release/gpujit-build-time"
    awk -v a="${start}" -v b="${end}" 'BEGIN { printf "%.3f\n", b - a }'
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "warm build of the dependencies (once) ..."
gen 1 0
cargo build --release --quiet --manifest-path "${CRATE}/Cargo.toml"

t1s=() t20s=()
for ((r = 1; r <= ROUNDS; r++)); do
    gen 1 "${r}"
    t1s+=("$(build)")
    gen 20 "${r}"
    t20s+=("$(build)")
    echo "round ${r}: 1 kernel ${t1s[-1]} s, 20 kernels ${t20s[-1]} s"
done
t1=$(printf '%s\n' "${t1s[@]}" | median)
t20=$(printf '%s\n' "${t20s[@]}" | median)
per=$(awk -v a="${t1}" -v b="${t20}" 'BEGIN { printf "%.3f", (b - a) / 19 }')
printf '%s kernels, release build of the crate, median of %d: 1 kernel %.2f s, 20 kernels %.2f s\n' "${KIND}" "${ROUNDS}" "${t1}" "${t20}"
printf 'per additional kernel: %s s (goal: <= 0.1 s): %s\n' "${per}" \
    "$(awk -v p="${per}" 'BEGIN { print (p <= 0.1 ? "met" : "not met") }')"
