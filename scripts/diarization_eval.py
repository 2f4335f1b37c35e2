"""The diarization evaluation (issue 48): builds the voices set from the Asterisk prompts and
scores kino's speaker turns against references by diarization error rate.

    python3 scripts/diarization_eval.py build PROMPTS OUT     # the set: OUT/<name>.wav, .rttm
    python3 scripts/diarization_eval.py score REFS HYP [--setting S] [--floor held-out=0.25]

DER is NIST's: (missed + false alarm + confusion) / reference speech, no collar, overlapping
speech counted (each speaker of an overlap is a reference speaker to find), under the mapping of
hypothesis to reference speakers that maximises their overlap (Hungarian algorithm): the rule of
pyannote's published figures. Standard library only.

The set: 16 kHz mono files of real prompts by four speakers of the Asterisk sound packages
(Allison Smith in English and in Spanish, June Wallack in Canadian French, Carlo Flora in Italian,
a Russian speaker), read in turns of several prompts. A prompt's reference extent is the prompt
less its leading and trailing silence (10 ms frames below 1% of full scale, RMS). Prompts are
split by name between the tuning files and the held-out ones, so that no held-out recording was
heard while the settings were chosen. Deterministic: a fixed seed, files in sorted order.
"""

import math
import os
import random
import subprocess
import sys
import wave
from array import array

RATE = 16000
SPEAKERS = {
    # voice directory: (speaker, language)
    "en_US_f_Allison": ("allison", "en"),
    "es_MX_f_Allison": ("allison", "es"),
    "fr_CA_f_June": ("june", "fr"),
    "it_IT_m_Carlo": ("carlo", "it"),
    "ru_RU_f_IvrvoiceRU": ("ivrvoice-ru", "ru"),
}
# (file, part, voices, seconds): tune files draw prompts named a-l, held-out ones m-z.
FILES = [
    ("tune-solo", "tune", ["ru_RU_f_IvrvoiceRU"], 60),
    ("tune-duo", "tune", ["en_US_f_Allison", "it_IT_m_Carlo"], 90),
    ("tune-trio", "tune", ["fr_CA_f_June", "ru_RU_f_IvrvoiceRU", "it_IT_m_Carlo"], 120),
    ("tune-quartet", "tune", ["en_US_f_Allison", "fr_CA_f_June", "ru_RU_f_IvrvoiceRU", "it_IT_m_Carlo"], 150),
    ("heldout-solo", "heldout", ["it_IT_m_Carlo"], 60),
    ("heldout-duo", "heldout", ["fr_CA_f_June", "en_US_f_Allison"], 90),
    ("heldout-trio", "heldout", ["en_US_f_Allison", "it_IT_m_Carlo", "ru_RU_f_IvrvoiceRU"], 120),
    ("heldout-quartet", "heldout", ["es_MX_f_Allison", "fr_CA_f_June", "it_IT_m_Carlo", "ru_RU_f_IvrvoiceRU"], 150),
]
SEED = 48


def decode(path):
    out = subprocess.run(
        ["ffmpeg", "-v", "error", "-nostdin", "-f", "g722", "-i", path, "-ac", "1", "-ar", str(RATE), "-f", "s16le", "-"],
        check=True,
        capture_output=True,
    ).stdout
    samples = array("h")
    samples.frombytes(out[: len(out) // 2 * 2])
    return samples


def trimmed(samples):
    """The prompt's speech: [first, last) samples between the first and last loud 10 ms frame."""
    frame = RATE // 100
    loud = []
    for i in range(0, len(samples) - frame + 1, frame):
        rms = math.sqrt(sum(x * x for x in samples[i : i + frame]) / frame) / 32768
        loud.append(rms >= 0.01)
    if not any(loud):
        return None
    first = loud.index(True) * frame
    last = (len(loud) - loud[::-1].index(True)) * frame
    return first, last


def build(prompts, out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    pools = {}
    for voice in SPEAKERS:
        names = sorted(n for n in os.listdir(os.path.join(prompts, voice)) if n.endswith(".g722"))
        pools[voice] = {
            "tune": [n for n in names if n[0] <= "l"],
            "heldout": [n for n in names if n[0] > "l"],
        }
    for name, part, voices, seconds in FILES:
        audio = array("h")
        turns = []
        pool = {v: list(pools[v][part]) for v in voices}
        for v in voices:
            rng.shuffle(pool[v])
        previous = None
        while len(audio) < seconds * RATE:
            voice = rng.choice([v for v in voices if v != previous] or voices)
            previous = voice
            # A turn: prompts of one voice for 3 to 10 s, 0.1-0.3 s apart; then 0.2-1.0 s before the next.
            length = rng.uniform(3.0, 10.0) * RATE
            start = len(audio)
            while len(audio) - start < length and pool[voice]:
                samples = decode(os.path.join(prompts, voice, pool[voice].pop()))
                extent = trimmed(samples)
                if extent is None or extent[1] - extent[0] < RATE // 2:
                    continue
                a, b = extent
                turns.append((len(audio) / RATE, (b - a) / RATE, SPEAKERS[voice][0]))
                audio.extend(samples[a:b])
                audio.extend(array("h", bytes(2 * int(rng.uniform(0.1, 0.3) * RATE))))
            audio.extend(array("h", bytes(2 * int(rng.uniform(0.2, 1.0) * RATE))))
        with wave.open(os.path.join(out, name + ".wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(audio.tobytes())
        with open(os.path.join(out, name + ".rttm"), "w") as f:
            for start, duration, who in turns:
                f.write(f"SPEAKER {name} 1 {start:.3f} {duration:.3f} <NA> <NA> {who} <NA> <NA>\n")
        print(f"{name}: {len(audio) / RATE:.1f} s, {len(turns)} prompts, {len(voices)} voices", file=sys.stderr)


def read_rttm(lines):
    """{file: [(start, end, speaker)]} from RTTM lines."""
    out = {}
    for line in lines:
        f = line.split()
        if len(f) >= 8 and f[0] == "SPEAKER":
            start, duration = float(f[3]), float(f[4])
            out.setdefault(f[1], []).append((start, start + duration, f[7]))
    return out


def hungarian(cost):
    """The assignment of rows to columns of a square matrix that minimises the total cost."""
    n = len(cost)
    u, v, p, way = [0.0] * (n + 1), [0.0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = [math.inf] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], math.inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return {p[j] - 1: j - 1 for j in range(1, n + 1) if p[j]}


def der(reference, hypothesis):
    """(DER, missed, false alarm, confusion, reference seconds), no collar, overlap counted."""
    cuts = sorted({t for s, e, _ in reference + hypothesis for t in (s, e)})
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        mid = (a + b) / 2
        ref = {w for s, e, w in reference if s <= mid < e}
        hyp = {w for s, e, w in hypothesis if s <= mid < e}
        if ref or hyp:
            pieces.append((b - a, ref, hyp))
    refs = sorted({w for _, _, w in reference})
    hyps = sorted({w for _, _, w in hypothesis})
    n = max(len(refs), len(hyps), 1)
    overlap = [[0.0] * n for _ in range(n)]
    for d, ref, hyp in pieces:
        for h in hyp:
            for r in ref:
                overlap[hyps.index(h)][refs.index(r)] += d
    assignment = hungarian([[-x for x in row] for row in overlap])
    mapping = {hyps[h]: refs[r] for h, r in assignment.items() if h < len(hyps) and r < len(refs)}
    missed = false_alarm = confusion = total = 0.0
    for d, ref, hyp in pieces:
        total += d * len(ref)
        missed += d * max(0, len(ref) - len(hyp))
        false_alarm += d * max(0, len(hyp) - len(ref))
        correct = len({mapping.get(h) for h in hyp} & ref)
        confusion += d * (min(len(ref), len(hyp)) - correct)
    rate = (missed + false_alarm + confusion) / total if total else 0.0
    return rate, missed, false_alarm, confusion, total


def score(refs_dir, hyp_path, floors):
    """Prints DER per file and per part for every setting of the hypothesis file; checks floors
    (part=most) on the first setting."""
    blocks, current = [], None
    with open(hyp_path) as f:
        for line in f:
            if line.startswith("# setting"):
                current = line[len("# setting ") :].strip()
                if current not in [b[0] for b in blocks]:
                    blocks.append((current, []))
            elif current is not None:
                dict(blocks)[current].append(line)
    references = {}
    for name in sorted(os.listdir(refs_dir)):
        if name.endswith(".rttm"):
            with open(os.path.join(refs_dir, name)) as f:
                references.update(read_rttm(f))
    failed = []
    for number, (setting, lines) in enumerate(blocks):
        hyp = read_rttm(lines)
        print(f"setting {setting}")
        parts = {}
        for name in sorted(references):
            rate, missed, fa, conf, total = der(references[name], hyp.get(name, []))
            speakers = len({w for _, _, w in hyp.get(name, [])})
            truth = len({w for _, _, w in references[name]})
            print(
                f"  {name:18} DER {100 * rate:5.1f}%  missed {100 * missed / total:4.1f}%  false alarm "
                f"{100 * fa / total:4.1f}%  confusion {100 * conf / total:4.1f}%  speakers {speakers} of {truth}  "
                f"({total:.1f} s of speech)"
            )
            part = name.split("-")[0] if "-" in name else name
            sums = parts.setdefault(part, [0.0, 0.0])
            sums[0] += missed + fa + conf
            sums[1] += total
        for part, (errors, total) in parts.items():
            print(f"  {part:18} DER {100 * errors / total:5.1f}% (all its files' errors over all their speech)")
            if number == 0 and part in floors and errors / total > floors[part]:
                failed.append(f"{part} DER {100 * errors / total:.1f}% above the floor {100 * floors[part]:.0f}%")
    for f in failed:
        print(f"diarization-eval: FAILED: {f}", file=sys.stderr)
    return 1 if failed else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "score":
        floors = {}
        args = sys.argv[4:]
        for i, a in enumerate(args):
            if a == "--floor":
                for pair in args[i + 1].split(","):
                    part, most = pair.split("=")
                    floors[part] = float(most)
        return score(sys.argv[2], sys.argv[3], floors)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
