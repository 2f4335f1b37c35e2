#!/usr/bin/env python3
"""Side-by-side ANN comparison on identical data: kino, hnswlib, usearch and faiss-cpu.

Reads the vectors, queries and exact ground truth that `cargo run --release --example
vector_report` writes (bench-data/clustered-<n>x<dim>.{base,queries,truth}.npy; vectors are
L2-normalised, so every library searches by inner product), builds each library's HNSW with
M = 16 and ef_construction = 200, sweeps ef with ONE search thread, and prints each one's
recall@10 and queries/s, then the fastest setting reaching recall@10 >= 0.95 and >= 0.99.

kino is run through its CLI (`kino index bench`) over the index the report program built
(bench-data/clustered-<n>x<dim>.kvx, which holds int8 codes), so it searches the memory-mapped
file: `kino` walks the graph over the float vectors, `kino-int8` over the int8 codes and
re-ranks the beam's best 20 with the floats (`--precision int8 --rerank 20`). The peers' own
8-bit modes (usearch `dtype="i8"`, faiss `IndexHNSWSQ` with `QT_8bit`, neither re-ranking with
floats) run with `--only usearch-i8,faiss-sq8`.

Setup (once):
    python3 -m venv .venv-ann && .venv-ann/bin/pip install numpy hnswlib usearch faiss-cpu
    cargo build --release -p kino-cli
Run:
    .venv-ann/bin/python scripts/compare_ann.py --data bench-data --n 100000 --dim 256
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

EFS = [16, 24, 32, 40, 48, 56, 64, 96, 128, 256]
K = 10
M = 16
EF_CONSTRUCTION = 200


def recall(found, truth):
    hits = sum(len(set(f[:K]) & set(t[:K])) for f, t in zip(found, truth))
    return hits / (len(truth) * K)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def sweep(name, search, queries, truth):
    rows = []
    for ef in EFS:
        search(queries[:10], ef)  # warm up
        found, seconds = timed(lambda: search(queries, ef))
        rows.append((ef, recall(found, truth), len(queries) / seconds))
        print(f"{name:8s} ef={ef:<4d} recall@10={rows[-1][1]:.4f} qps={rows[-1][2]:.0f}", flush=True)
    return rows


def run_hnswlib(base, queries, truth, threads):
    import hnswlib

    index = hnswlib.Index(space="ip", dim=base.shape[1])
    index.init_index(max_elements=len(base), ef_construction=EF_CONSTRUCTION, M=M)
    index.set_num_threads(threads)
    _, build = timed(lambda: index.add_items(base, np.arange(len(base))))
    index.set_num_threads(1)

    def search(q, ef):
        index.set_ef(max(ef, K))
        return index.knn_query(q, k=K)[0]

    return build, sweep("hnswlib", search, queries, truth)


def run_usearch(base, queries, truth, threads):
    from usearch.index import Index

    index = Index(ndim=base.shape[1], metric="ip", dtype="f32", connectivity=M, expansion_add=EF_CONSTRUCTION)
    _, build = timed(lambda: index.add(np.arange(len(base)), base, threads=threads))

    def search(q, ef):
        index.expansion_search = ef
        return index.search(q, K, threads=1).keys

    return build, sweep("usearch", search, queries, truth)


def run_usearch_i8(base, queries, truth, threads):
    from usearch.index import Index

    index = Index(ndim=base.shape[1], metric="ip", dtype="i8", connectivity=M, expansion_add=EF_CONSTRUCTION)
    _, build = timed(lambda: index.add(np.arange(len(base)), base, threads=threads))

    def search(q, ef):
        index.expansion_search = ef
        return index.search(q, K, threads=1).keys

    return build, sweep("usearch-i8", search, queries, truth)


def run_faiss_sq8(base, queries, truth, threads):
    import faiss

    faiss.omp_set_num_threads(threads)
    index = faiss.IndexHNSWSQ(base.shape[1], faiss.ScalarQuantizer.QT_8bit, M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = EF_CONSTRUCTION
    _, build = timed(lambda: (index.train(base), index.add(base)))
    faiss.omp_set_num_threads(1)

    def search(q, ef):
        index.hnsw.efSearch = ef
        return index.search(q, K)[1]

    return build, sweep("faiss-sq8", search, queries, truth)


def run_faiss(base, queries, truth, threads):
    import faiss

    faiss.omp_set_num_threads(threads)
    index = faiss.IndexHNSWFlat(base.shape[1], M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = EF_CONSTRUCTION
    _, build = timed(lambda: index.add(base))
    faiss.omp_set_num_threads(1)

    def search(q, ef):
        index.hnsw.efSearch = ef
        return index.search(q, K)[1]

    return build, sweep("faiss", search, queries, truth)


def run_kino(stem, cli, precision="float"):
    index, queries = f"{stem}.kvx", f"{stem}.queries.npy"
    if not os.path.exists(index):
        sys.exit(f"{index} is missing: run the report program first")
    extra = [] if precision == "float" else ["--precision", precision, "--rerank", "20"]
    out = subprocess.run(
        [cli, "index", "bench", index, "--queries", queries, "--ef", ",".join(map(str, EFS))] + extra,
        check=True, capture_output=True, text=True,
    ).stdout
    name = "kino" if precision == "float" else f"kino-{precision}"
    rows = []
    for line in out.splitlines()[1:]:
        ef, rec, qps = line.split("\t")
        rows.append((int(ef), float(rec), float(qps)))
        print(f"{name:9s} ef={int(ef):<4d} recall@10={float(rec):.4f} qps={float(qps):.0f}", flush=True)
    return None, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="bench-data")
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--build-threads", type=int, default=os.cpu_count())
    parser.add_argument("--cli", default="target/release/kino")
    parser.add_argument("--only", default="kino,kino-int8,hnswlib,usearch,faiss")
    args = parser.parse_args()
    stem = os.path.join(args.data, f"clustered-{args.n}x{args.dim}")
    base = np.load(f"{stem}.base.npy")
    queries = np.load(f"{stem}.queries.npy")
    truth = np.load(f"{stem}.truth.npy").astype(np.int64)
    print(f"{len(base)} x {base.shape[1]} base, {len(queries)} queries, M={M}, ef_construction={EF_CONSTRUCTION}, "
          f"build threads={args.build_threads}, search threads=1")
    runners = {
        "kino": lambda: run_kino(stem, args.cli),
        "kino-int8": lambda: run_kino(stem, args.cli, "int8"),
        "hnswlib": lambda: run_hnswlib(base, queries, truth, args.build_threads),
        "usearch": lambda: run_usearch(base, queries, truth, args.build_threads),
        "faiss": lambda: run_faiss(base, queries, truth, args.build_threads),
        # The peers' own 8-bit modes (no float re-ranking): not in the default run.
        "usearch-i8": lambda: run_usearch_i8(base, queries, truth, args.build_threads),
        "faiss-sq8": lambda: run_faiss_sq8(base, queries, truth, args.build_threads),
    }
    results = [(name, *runners[name]()) for name in args.only.split(",")]
    for target in (0.95, 0.99):
        print(f"\nlibrary    build_s   ef   recall@10   qps_1thread  (fastest setting with recall@10 >= {target})")
        for name, build, rows in results:
            good = [r for r in rows if r[1] >= target]
            best = max(good, key=lambda r: r[2]) if good else None
            b = "   (report)" if build is None else f"{build:9.1f}"
            if best:
                print(f"{name:9s} {b}  {best[0]:4d}   {best[1]:.4f}     {best[2]:9.0f}")
            else:
                print(f"{name:9s} {b}  recall@10 never reached {target}")


if __name__ == "__main__":
    main()
