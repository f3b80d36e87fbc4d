"""Does a refused hnswlib query leak its result arrays? (issue 31: the 400,000-text growth)

hnswlib's ``knn_query`` raises "Cannot return the results in a contiguous 2D array" when a
query reaches fewer than k points. Its binding allocates the result arrays (rows x k labels
of 8 bytes and distances of 4) before searching and throws without freeing them. This script
refuses every call on purpose (k above the index's 100 points) and prints how much the
process's data segment (``VmData``) grew, beside the size of those arrays; then the same for
calls that are answered. Linux only (``/proc/self/status``); needs the ``ann`` extra.

Usage::

    python benchmarks/check_hnswlib_refused_leak.py
"""

import numpy as np


def vm_data():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmData in /proc/self/status")


def main(calls=50, rows=1000):
    import hnswlib

    rng = np.random.default_rng(0)
    index = hnswlib.Index(space="ip", dim=50)
    index.init_index(max_elements=100, random_seed=0)
    index.add_items(rng.normal(size=(100, 50)).astype(np.float32), np.arange(100))
    index.set_num_threads(1)
    index.set_ef(400)
    queries = rng.normal(size=(rows, 50)).astype(np.float32)
    for k, label in ((200, "refused"), (50, "answered")):
        before, failed = vm_data(), 0
        for _ in range(calls):
            try:
                index.knn_query(queries, k=k)
            except RuntimeError:
                failed += 1
        grown = (vm_data() - before) / 2**20
        print(f"{calls} calls of {rows} rows x k={k} ({failed} refused): VmData +{grown:.1f} MiB;"
              f" the refused calls' result arrays: {failed * rows * k * 12 / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
