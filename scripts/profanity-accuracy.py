#!/usr/bin/env python3
"""Profanity found from speech by `kino analyze`: precision, recall and timing on synthetic speech
with known words (issue 17).

    scripts/profanity-accuracy.py KINO_BIN [--keep DIR]

espeak-ng speaks 24 sentences, placed 6 s apart in one 150 s video (ffmpeg): 12 carry one profane
word each, of every severity of kino's lexicon; 12 are clean, half of them with near misses
(hello, class, Dickens, assume, shell, cocktail). `kino analyze` transcribes the video with Whisper
and finds profanity events. An event is a true positive when it names a word of the sentence that
carries one and lies inside that sentence's spoken extent (first to last sample above 1 % of full
scale, measured on espeak's own WAV, widened by 0.5 s); any other event is a false positive; a
profane sentence without its event is a miss. Prints the transcript and the figures, and fails
(exit 1) below precision 0.9 or recall 0.7: a guard against regressions, set under the measured
figures (precision 1.0, recall 0.75 with Whisper base; the misses are recognition errors on
espeak's robotic voice: "Damn" heard as "Mom", "Piss off" as "This off"). Standard library only;
needs espeak-ng and ffmpeg.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

SPACING = 6.0
# (sentence, the profane word's entry or None)
SENTENCES = [
    ("Damn, I forgot my keys again.", "damn"),
    ("Hello, how was your trip to the coast?", None),
    ("This is a load of crap and you know it.", "crap"),
    ("The class starts at nine in the morning.", None),
    ("Shit, the train has already left.", "shit"),
    ("We read a novel by Charles Dickens.", None),
    ("Get the hell out of my kitchen.", "hell"),
    ("I assume the meeting is cancelled.", None),
    ("You lying bastard, you took the money.", "bastard"),
    ("She found a shell on the beach.", None),
    ("What the fuck are you doing here?", "fuck"),
    ("He ordered a cocktail at the bar.", None),
    ("Stop acting like a bitch about it.", "bitch"),
    ("The weather will be sunny tomorrow.", None),
    ("That bloody dog ate my sandwich.", "bloody"),
    ("Please pass the salt and the pepper.", None),
    ("Don't be such an asshole to your brother.", "ass"),
    ("The museum opens on Sunday afternoon.", None),
    ("Oh crap, I spilled the coffee.", "crap"),
    ("Our neighbours painted their fence green.", None),
    ("This fucking computer never works.", "fuck"),
    ("The children played football in the park.", None),
    ("Piss off and leave me alone.", "piss"),
    ("We will meet again next week.", None),
]


def spoken_extent(wav: Path) -> tuple[float, float]:
    with wave.open(str(wav)) as w:
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    samples = [int.from_bytes(frames[i : i + 2], "little", signed=True) for i in range(0, len(frames), 2)]
    loud = [i for i, s in enumerate(samples) if abs(s) > 328]
    return loud[0] / rate, (loud[-1] + 1) / rate


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    kino = sys.argv[1]
    keep = Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--keep" else None
    for tool in ("espeak-ng", "ffmpeg"):
        if shutil.which(tool) is None:
            print(f"profanity-accuracy: error: {tool} is not installed", file=sys.stderr)
            return 2
    work = Path(tempfile.mkdtemp(prefix="kino-profanity-"))
    try:
        inputs, graph, truth = [], [], []
        for i, (text, word) in enumerate(SENTENCES):
            wav = work / f"s{i}.wav"
            subprocess.run(["espeak-ng", "-w", str(wav), text], check=True)
            a, b = spoken_extent(wav)
            at = 1.0 + i * SPACING
            truth.append((at + a, at + b, word, text))
            inputs += ["-i", str(wav)]
            graph.append(f"[{i}:a]aresample=48000,adelay={int(at * 1000)}:all=1[u{i}]")
        n = len(SENTENCES)
        duration = 1.0 + n * SPACING
        mix = "".join(f"[u{i}]" for i in range(n))
        graph.append(f"anullsrc=r=48000:cl=mono,atrim=duration={duration}[bed]")
        graph.append(f"[bed]{mix}amix=inputs={n + 1}:normalize=0:duration=first[a]")
        graph.append(f"color=c=gray:s=160x90:r=10:d={duration},format=yuv420p[v]")
        video = work / "profanity.mp4"
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex", ";".join(graph), "-map", "[v]", "-map", "[a]",
             "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-t", str(duration), str(video)],
            check=True,
        )
        out = work / "profanity.json"
        subprocess.run([kino, "analyze", str(video), "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
        doc = json.loads(out.read_text())
        events = doc.get("profanity")
        if events is None:
            print("profanity-accuracy: error: no profanity channel:", doc.get("analysis", {}).get("reasons"), file=sys.stderr)
            return 2
        said = {round(s["start"], 1): s["text"] for s in doc.get("transcript", {}).get("segments", [])}
        tp, fp, offsets = 0, 0, []
        found = set()
        for e in events:
            hit = None
            for k, (a, b, word, _) in enumerate(truth):
                if word and a - 0.5 <= e["start"] and e["end"] <= b + 0.5:
                    hit = k
            if hit is None:
                fp += 1
                print(f"  false positive: {e}")
            else:
                tp += 1
                found.add(hit)
                offsets.append(e["start"] - truth[hit][0])
        profane = [k for k, t in enumerate(truth) if t[2]]
        missed = [truth[k][3] for k in profane if k not in found]
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = len(found) / len(profane)
        print(f"transcript ({len(said)} segments):")
        for t, text in sorted(said.items()):
            print(f"  {t:7.1f}  {text}")
        for m in missed:
            print(f"  missed: {m}")
        print(f"profanity on synthetic speech: {len(profane)} profane and {n - len(profane)} clean sentences, "
              f"{len(events)} events: precision {precision:.3f}, recall {recall:.3f}, "
              f"event start after the sentence start: mean {sum(offsets) / max(len(offsets), 1):.2f} s")
        ok = precision >= 0.9 and recall >= 0.7
        print("PASS" if ok else "FAIL (guards: precision >= 0.9, recall >= 0.7)")
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, keep / "profanity.json")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
