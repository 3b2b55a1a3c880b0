"""Numba's @njit(parallel=True) on cpu_bench's jobs, at its sizes (issue #20).

The same arithmetic as bench/workloads/mod.rs's kernels, written as Numba
users write CPU code: prange over rows or elements, float32 throughout.
Prints one Markdown table of median milliseconds (5 timed runs after a
warm-up that compiles). Run: python3 bench/numba/numba_parallel.py
(needs `pip install numba numpy`; not part of CI).
"""

import time

import numba
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=False)
def grayscale(rgb, gray):
    h, w = gray.shape
    for y in prange(h):
        for x in range(w):
            r = np.float32(rgb[y, x, 0])
            g = np.float32(rgb[y, x, 1])
            b = np.float32(rgb[y, x, 2])
            gray[y, x] = np.uint8(np.float32(0.299) * r + np.float32(0.587) * g + np.float32(0.114) * b)


@njit(parallel=True)
def saxpy(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i] + y[i]


@njit(parallel=True)
def stencil(a, out):
    n = a.shape[0]
    for y in prange(n):
        for x in range(n):
            if y > 0 and y + 1 < n and x > 0 and x + 1 < n:
                out[y, x] = np.float32(0.2) * (a[y, x] + a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1])
            else:
                out[y, x] = a[y, x]


@njit(parallel=True)
def total(x):
    s = np.float32(0.0)
    for i in prange(x.shape[0]):
        s += x[i]
    return s


@njit(parallel=True)
def matmul(a, b, c):
    n, k = a.shape
    m = b.shape[1]
    for i in prange(n):
        for j in range(m):
            c[i, j] = 0.0
        for p in range(k):
            aip = a[i, p]
            for j in range(m):
                c[i, j] += aip * b[p, j]


def median_ms(f, *args):
    f(*args)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3


def main():
    rng = np.random.default_rng(1)
    rows = []
    rgb = rng.integers(0, 256, size=(2160, 3840, 3), dtype=np.uint8)
    gray = np.zeros((2160, 3840), dtype=np.uint8)
    rows.append(("grayscale 3840×2160", median_ms(grayscale, rgb, gray)))
    x = rng.random(10_000_000, dtype=np.float32)
    y = rng.random(10_000_000, dtype=np.float32)
    rows.append(("saxpy 10000000", median_ms(saxpy, np.float32(0.5), x, y)))
    a = rng.random((4096, 4096), dtype=np.float32)
    out = np.zeros_like(a)
    rows.append(("5-point stencil 4096×4096", median_ms(stencil, a, out)))
    s = (np.arange(16 << 20) % 97 - 40).astype(np.float32)
    rows.append(("sum 16777216 f32", median_ms(total, s)))
    for n in (512, 1024):
        a = rng.random((n, n), dtype=np.float32)
        b = rng.random((n, n), dtype=np.float32)
        c = np.zeros((n, n), dtype=np.float32)
        rows.append((f"matmul n = {n}", median_ms(matmul, a, b, c)))
    print(f"numba {numba.__version__}, numpy {np.__version__}, threads {numba.get_num_threads()}")
    print("| job | numba parallel ms |")
    print("|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.3f} |")


if __name__ == "__main__":
    main()
