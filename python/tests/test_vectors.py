"""Vector search: exact search against numpy, HNSW recall against exact, files, filters, errors."""

import threading

import numpy as np
import pytest

import kino


def clustered(n, d, seed, centres=20):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centres, d)).astype(np.float32)
    x = c[rng.integers(0, centres, size=n)] + 0.4 * rng.normal(size=(n, d)).astype(np.float32)
    return x.astype(np.float32)


def numpy_top(vectors, queries, k, metric):
    if metric == "cosine":
        v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
        scores = q @ v.T
    elif metric == "dot":
        scores = queries @ vectors.T
    else:
        scores = -((queries[:, None, :] - vectors[None, :, :]) ** 2).sum(-1)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(scores, order, axis=1)


@pytest.mark.parametrize("metric", ["cosine", "dot", "l2"])
def test_exact_search_matches_numpy(metric):
    vectors = clustered(500, 24, seed=1)
    queries = clustered(20, 24, seed=2)
    idx, scores = kino.exact_search(vectors, queries, k=5, metric=metric)
    want_idx, want_scores = numpy_top(vectors, queries, 5, metric)
    assert idx.shape == (20, 5) and idx.dtype == np.int64 and scores.dtype == np.float32
    np.testing.assert_allclose(scores, want_scores, rtol=1e-4, atol=1e-3)
    assert (idx == want_idx).mean() > 0.98  # ties between near-equal scores may swap
    one_idx, one_scores = kino.exact_search(vectors, queries[0], k=5, metric=metric)
    assert one_idx.shape == (5,)
    np.testing.assert_array_equal(one_idx, idx[0])


def test_exact_search_pads_when_k_exceeds_rows():
    vectors = clustered(3, 8, seed=3)
    idx, scores = kino.exact_search(vectors, vectors[:2], k=5)
    assert (idx[:, 3:] == -1).all() and np.isnan(scores[:, 3:]).all()


@pytest.fixture(scope="module")
def built():
    vectors = clustered(2000, 64, seed=4)
    ids = [f"v{i}" for i in range(len(vectors))]
    return vectors, ids, kino.VectorIndex.build(vectors, ids, m=16, ef_construction=100)


def test_hnsw_recall_against_exact(built):
    vectors, ids, index = built
    queries = clustered(100, 64, seed=5)
    got, _ = index.search(queries, k=10, ef=64)
    truth, _ = kino.exact_search(vectors, queries, k=10)
    recall = np.mean([len(set(g) & {ids[i] for i in t}) / 10 for g, t in zip(got, truth)])
    assert recall >= 0.9, recall
    assert len(index) == 2000 and index.dim == 64 and index.metric == "cosine"


def test_every_point_finds_itself(built):
    vectors, ids, index = built
    got, scores = index.search(vectors[:300], k=1, ef=64)
    assert [g[0] for g in got] == ids[:300]
    assert np.allclose(scores[:, 0], 1.0, atol=1e-4)


def test_save_open_search_equality(built, tmp_path):
    vectors, ids, index = built
    path = tmp_path / "index.kvx"
    index.save(path)
    opened = kino.VectorIndex.open(path)
    opened.verify()
    assert opened.path is not None and len(opened) == len(index)
    queries = clustered(30, 64, seed=6)
    a_ids, a_scores = index.search(queries, k=7)
    b_ids, b_scores = opened.search(queries, k=7)
    assert a_ids == b_ids
    np.testing.assert_array_equal(a_scores, b_scores)


def test_one_query_matches_batch(built):
    vectors, _, index = built
    queries = clustered(5, 64, seed=7)
    batch_ids, batch_scores = index.search(queries, k=4)
    for i, q in enumerate(queries):
        ids, scores = index.search(q, k=4)
        assert ids == batch_ids[i]
        np.testing.assert_array_equal(scores, batch_scores[i])


def test_exclude_is_never_returned(built):
    vectors, ids, index = built
    nearest, _ = index.search(vectors[10], k=20)
    banned = nearest[:5]
    got, _ = index.search(vectors[10], k=20, exclude=banned)
    assert not set(got) & set(banned) and len(got) == 20
    got, _ = index.search(vectors[10], k=3, exclude=ids[10])
    assert ids[10] not in got


def test_allow_returns_only_the_allowed_exactly_when_few(built):
    vectors, ids, index = built
    # a rare subset (one id in 40: under the share where the index scans exactly), a common one
    rare = ids[::40]
    got, scores = index.search(vectors[10], k=5, allow=rare)
    assert set(got) <= set(rare) and len(got) == 5
    exact_ids, _ = kino.exact_search(vectors[::40], vectors[10], k=5)
    assert got == [rare[i] for i in exact_ids], "a rare allow-list is searched exactly"
    common = ids[::2]
    got, _ = index.search(vectors[11], k=10, allow=common, exclude=ids[10])
    assert set(got) <= set(common) and ids[10] not in got and len(got) == 10
    batch, _ = index.search(vectors[:3], k=4, allow=rare)
    assert all(set(row) <= set(rare) for row in batch)
    with pytest.raises(TypeError, match="allow must be an id"):
        index.search(vectors[0], k=3, allow=5)


def test_codes_walk_the_graph_and_scores_stay_float(built, tmp_path):
    vectors, ids, index = built
    assert index.codes == "none" and index.precision == "float"
    coded = kino.VectorIndex.build(vectors, ids, m=16, ef_construction=100, codes="int8,binary", precision="int8")
    assert coded.codes == "int8,binary" and coded.precision == "int8"
    path = tmp_path / "coded.kvx"
    coded.save(path)
    queries = clustered(100, 64, seed=5)
    truth, _ = kino.exact_search(vectors, queries, k=10)
    # 64 bits a vector are coarse: binary codes are for wide vectors (docs/vector-search.md).
    for precision, ef, floor in [("int8", 64, 0.9), ("binary", 256, 0.6)]:
        opened = kino.VectorIndex.open(path, precision=precision)
        assert opened.precision == precision
        got, scores = opened.search(queries, k=10, ef=ef)
        recall = np.mean([len(set(g) & {ids[i] for i in t}) / 10 for g, t in zip(got, truth)])
        assert recall >= floor, (precision, recall)
        # The scores are the float similarities of the ids returned.
        expected = [float(np.dot(queries[0] / np.linalg.norm(queries[0]), vectors[ids.index(g)] / np.linalg.norm(vectors[ids.index(g)]))) for g in got[0]]
        np.testing.assert_allclose(scores[0], expected, atol=1e-5)
    with pytest.raises(ValueError, match="precision"):
        kino.VectorIndex.open(path, precision="fp16")
    plain = tmp_path / "plain.kvx"
    index.save(plain)
    with pytest.raises(ValueError, match="int8 codes"):
        kino.VectorIndex.open(plain, precision="int8")
    with pytest.raises(ValueError, match="codes"):
        kino.VectorIndex.build(vectors[:10], ids[:10], codes="int4")


def test_threads_share_one_index(built):
    vectors, ids, index = built
    errors = []

    def work(offset):
        try:
            for i in range(offset, offset + 50):
                got, _ = index.search(vectors[i], k=1)
                assert got[0] == ids[i]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t * 50,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_bad_inputs_say_what_was_expected(built, tmp_path):
    vectors, ids, index = built
    with pytest.raises(TypeError, match="float32"):
        kino.VectorIndex.build(vectors.astype(np.float64), ids)
    with pytest.raises(TypeError, match=r"\(n, d\)"):
        kino.VectorIndex.build(vectors[0], ids[:1])
    with pytest.raises(ValueError, match="one id per row"):
        kino.VectorIndex.build(vectors[:10], ids[:9])
    with pytest.raises(ValueError, match="duplicate id"):
        kino.VectorIndex.build(vectors[:2], ["a", "a"])
    with pytest.raises(ValueError, match="metric"):
        kino.VectorIndex.build(vectors[:2], ["a", "b"], metric="hamming")
    with pytest.raises(ValueError, match="64 columns"):
        index.search(np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="at most"):
        index.search(vectors[:4], k=10**12)
    with pytest.raises(ValueError, match="at most"):
        kino.exact_search(vectors, vectors[:4], k=10**12)
    with pytest.raises(ValueError, match="k must be >= 1"):
        index.search(vectors[0], k=0)
    with pytest.raises(ValueError, match="finite"):
        kino.VectorIndex.build(np.full((2, 4), np.nan, dtype=np.float32), ["a", "b"])
    with pytest.raises(FileNotFoundError):
        kino.VectorIndex.open(tmp_path / "missing.kvx")


def test_damaged_files_raise_not_crash(built, tmp_path):
    _, _, index = built
    path = tmp_path / "index.kvx"
    index.save(path)
    data = path.read_bytes()
    (tmp_path / "short.kvx").write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError, match="truncated|length|size"):
        kino.VectorIndex.open(tmp_path / "short.kvx")
    (tmp_path / "foreign.kvx").write_bytes(b"not an index at all" * 100)
    with pytest.raises(OSError):
        kino.VectorIndex.open(tmp_path / "foreign.kvx")
    damaged = bytearray(data)
    damaged[len(damaged) - 100] ^= 0xFF
    (tmp_path / "damaged.kvx").write_bytes(bytes(damaged))
    opened = kino.VectorIndex.open(tmp_path / "damaged.kvx")
    with pytest.raises(OSError, match="checksum|CRC|crc"):
        opened.verify()


def test_demo_scene_text_search():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "data" / "demo" / "signals"
    s = kino.Signals.load(root / "tt-demo-001.json")
    emb = s.scene_embeddings
    assert emb is not None and emb.shape == (len(s.scenes), 1024)
    ids = [f"{s.inventory_id}@{start:g}" for start, _ in s.scenes]
    index = kino.VectorIndex.build(emb, ids)
    found, scores = index.search(kino.TextEncoder().encode("car chase"), k=3)
    assert scores[0] > 0.5
    assert s.item_embedding is not None and s.item_embedding.shape == (256,)


def test_a_segmented_index_changes_item_by_item_and_reopens(tmp_path):
    d = 16
    x = clustered(120, d, seed=5)
    idx = kino.SegmentedIndex(tmp_path / "scenes", d, flush_vectors=20, merge_segments=2)
    for i in range(40):
        rows = x[i * 3 : i * 3 + 3]
        idx.upsert(f"t{i}", rows, spans=[(0.0, 5.0), (10.0, 15.0), (20.0, 25.0)], kind="movie", stamp=1)
    assert len(idx) == 40
    stats = idx.stats()
    assert stats["segments"] >= 1 and stats["items"] == 40
    # The best hit of a stored scene is itself, score ~1.
    hits = idx.search(x[7], k=3)
    assert (hits[0]["id"], hits[0]["start_ts"]) == ("t2", 10.0) and hits[0]["score"] > 0.999
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    # Filters apply during the search.
    assert all(h["id"] != "t2" for h in idx.search(x[7], k=10, exclude="t2"))
    assert {h["id"] for h in idx.search(x[7], k=10, ids=["t5", "t9"])} <= {"t5", "t9"}
    assert all(h["start_ts"] >= 10.0 and h["end_ts"] <= 15.0 for h in idx.search(x[7], k=10, window=(10.0, 15.0)))
    assert idx.search(x[7], k=5, kinds=["series"]) == []
    # Removed items are never found; a changed item is found with its new vectors only.
    idx.remove("t2")
    assert all(h["id"] != "t2" for h in idx.search(x[7], k=20))
    idx.upsert("t3", x[100:101], spans=[(0.0, 1.0)], stamp=2)
    assert [h["start_ts"] for h in idx.search(x[100], k=50) if h["id"] == "t3"] == [0.0]
    idx.compact()
    assert idx.stats()["segments"] == 1 and idx.stats()["dead_vectors"] == 0
    # Reopened, checked against the stamps of record: only what changed is named.
    idx.upsert("t4", x[101:102], spans=[(0.0, 1.0)], stamp=2)  # in the delta only
    del idx
    again = kino.SegmentedIndex(tmp_path / "scenes", d, flush_vectors=20, merge_segments=2)
    current = {f"t{i}": 1 for i in range(40) if i not in (2, 3, 4)} | {"t3": 2, "t4": 2}
    assert again.reconcile(current) == ["t4"]
    assert again.stamp("t3") == 2


def test_a_segmented_index_names_what_is_wrong(tmp_path):
    idx = kino.SegmentedIndex(tmp_path / "s", 4)
    with pytest.raises(ValueError, match="spans"):
        idx.upsert("a", np.ones((2, 4), np.float32), spans=[(0.0, 1.0)])
    with pytest.raises(ValueError, match="kind"):
        idx.upsert("a", np.ones((1, 4), np.float32), spans=[(0.0, 1.0)], kind="film")
    with pytest.raises(ValueError, match="window"):
        idx.search(np.ones(4, np.float32), window=(5.0, 1.0))
    with pytest.raises(ValueError):
        idx.search(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="metric"):
        kino.SegmentedIndex(tmp_path / "t", 4, metric="hamming")
