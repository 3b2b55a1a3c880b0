#!/usr/bin/env bash
# Builds what scripts/gpu-check.sh runs into gpu-bundle/, for a GPU machine
# that has no Rust toolchain (nor a network to fetch one): the release test
# binaries of the workspace and the examples, stripped, plus a list saying
# which folder each test binary runs in (cargo runs a test binary in its
# package's folder).
#
# Usage: bash scripts/gpu-bundle.sh            (here, with cargo)
#        tar -xJf gpu-bundle.tar.xz && \
#        GPU_CHECK_PREBUILT=gpu-bundle bash scripts/gpu-check.sh   (there)
#
# Test binaries bake the absolute path of this checkout in (env!
# ("CARGO_MANIFEST_DIR")); gpu-check.sh links that path to the checkout it
# runs in when the two differ (gpu-bundle/root.txt records it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
BUNDLE="${ROOT}/gpu-bundle"
rm -rf "${BUNDLE}"
mkdir -p "${BUNDLE}/tests" "${BUNDLE}/examples"

cargo build --release --examples
cargo test --workspace --release --no-run --message-format=json > "${BUNDLE}/build.json"

# One line per test binary: name, folder to run it in (relative), file.
python3 - "${BUNDLE}" "${ROOT}" <<'EOF'
import json, os, shutil, sys
bundle, root = sys.argv[1], sys.argv[2]
seen = set()
with open(os.path.join(bundle, "build.json")) as f, open(os.path.join(bundle, "tests.txt"), "w") as out:
    for line in f:
        msg = json.loads(line)
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            continue
        exe = msg["executable"]
        if exe in seen:
            continue
        seen.add(exe)
        pkg_dir = os.path.relpath(os.path.dirname(msg["manifest_path"]), root)
        # The driver double's own tests and the macro's unit tests (linked to
        # the toolchain's libstd.so) do not run on a GPU machine; trybuild
        # needs cargo (the `diagnostics` binary).
        if pkg_dir in ("driver-double", "gpujit-macros") or msg["target"]["name"] == "diagnostics":
            continue
        kind = msg["target"]["kind"][0]
        name = msg["target"]["name"] + ("-lib" if kind == "lib" else "")
        dest = os.path.join("tests", os.path.basename(exe))
        shutil.copy2(exe, os.path.join(bundle, dest))
        out.write(f"{name} {pkg_dir} {dest}\n")
EOF
rm "${BUNDLE}/build.json"

for example in examples/*.rs; do
    name="$(basename "${example}" .rs)"
    cp "target/release/examples/${name}" "${BUNDLE}/examples/"
done
strip "${BUNDLE}"/tests/* "${BUNDLE}"/examples/*
echo "${ROOT}" > "${BUNDLE}/root.txt"
# What travels (the device tool carries at most 64 MiB): about 9 MB.
tar -cJf "${ROOT}/gpu-bundle.tar.xz" -C "${ROOT}" gpu-bundle
du -sh "${BUNDLE}" "${ROOT}/gpu-bundle.tar.xz" >&2
echo "gpu-bundle: $(wc -l < "${BUNDLE}/tests.txt") test binaries, $(ls "${BUNDLE}/examples" | wc -l) examples in ${BUNDLE}" >&2
