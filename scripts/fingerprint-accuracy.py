#!/usr/bin/env python3
"""Measures the audio fingerprint's duplicate search on real media (issue 14): copies of the real
test videos made with ffmpeg (lossy re-encode at another sample rate, scaled down, cropped, trimmed
at both ends off the hop grid, a stretch cut out of the middle) must be found as the same title,
at the right offset, and different titles must never be confused.

    .venv/bin/python scripts/fingerprint-accuracy.py VIDEO_DIR

VIDEO_DIR holds the videos of scripts/fetch-test-media.sh (dialogue.mp4, music-only.mp4).
Prints one line per pair with its bit error rate, then the figures; exits 1 when a copy is missed,
an offset is wrong by more than 0.1 s, or two different titles are called the same."""

import itertools
import pathlib
import subprocess
import sys
import tempfile

import kino

SOURCES = ["dialogue.mp4", "music-only.mp4"]

# name -> (ffmpeg arguments, expected offset: seconds to add to a time of the copy to find the
# same sound in the original)
VARIANTS = {
    "reencode": (["-c:v", "libx264", "-crf", "40", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "48k",
                  "-ar", "22050"], 0.0),
    "scaled": (["-vf", "scale=320:-2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "96k"], 0.0),
    "cropped": (["-vf", "crop=iw*0.7:ih*0.7", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libmp3lame",
                 "-b:a", "64k"], 0.0),
}


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    videos = pathlib.Path(sys.argv[1])
    work = pathlib.Path(tempfile.mkdtemp(prefix="kino-fp-"))
    titles = {}  # id -> (source, expected offset, Signals)
    for source in SOURCES:
        src = videos / source
        if not src.exists():
            print(f"fingerprint-accuracy: {src} is missing (run scripts/fetch-test-media.sh)", file=sys.stderr)
            return 2
        stem = src.stem
        made = {stem: (src, 0.0)}
        for name, (args, offset) in VARIANTS.items():
            out = work / f"{stem}-{name}.mp4"
            ffmpeg("-i", str(src), *args, str(out))
            made[f"{stem}-{name}"] = (out, offset)
        # trimmed: 3.37 s off the start (not on the 0.1 s grid), 2 s off the end
        duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                                         "csv=p=0", str(src)], capture_output=True, text=True, check=True).stdout)
        out = work / f"{stem}-trimmed.mp4"
        ffmpeg("-ss", "3.37", "-i", str(src), "-t", f"{duration - 5.37:.3f}", "-c:v", "libx264", "-preset",
               "ultrafast", "-c:a", "aac", str(out))
        made[f"{stem}-trimmed"] = (out, 3.37)
        # cut: 4 s removed from the middle (the copy's first part is aligned, offset 0)
        a, b = duration / 2 - 2, duration / 2 + 2
        out = work / f"{stem}-cut.mp4"
        ffmpeg("-i", str(src), "-filter_complex",
               f"[0:v]trim=end={a},setpts=PTS-STARTPTS[v0];[0:v]trim=start={b},setpts=PTS-STARTPTS[v1];"
               f"[0:a]atrim=end={a},asetpts=PTS-STARTPTS[a0];[0:a]atrim=start={b},asetpts=PTS-STARTPTS[a1];"
               "[v0][a0][v1][a1]concat=n=2:v=1:a=1[v][a]", "-map", "[v]", "-map", "[a]",
               "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", str(out))
        made[f"{stem}-cut"] = (out, (0.0, 4.0))  # either half may align best
        for ident, (path, offset) in made.items():
            titles[ident] = (stem, offset, kino.analyze(str(path), models=False, inventory_id=ident))

    failures, copies, found, offsets_ok, strangers, confused = [], 0, 0, 0, 0, 0
    bers_same, bers_other = [], []
    for x, y in itertools.permutations(titles, 2):
        sx, ox, a = titles[x]
        sy, oy, b = titles[y]
        m = kino.compare_fingerprints(a, b)
        same = m is not None and m["same_title"]
        if sx == sy and y == sx:  # a copy against its original
            copies += 1
            expected = ox if isinstance(ox, tuple) else (ox,)
            line = f"{x:>24} -> {y:<16}"
            if m is None:
                failures.append(f"{line} nothing aligned")
                continue
            bers_same.append(m["bit_error_rate"])
            print(f"{line} BER {m['bit_error_rate']:.3f} offset {m['offset']:+.2f} s (expected {' or '.join(f'{e:+.2f}' for e in expected)}) "
                  f"overlap {m['overlap']:.1f} s same={same}")
            found += same
            good_offset = any(abs(m["offset"] - e) <= 0.1 for e in expected)
            offsets_ok += good_offset
            if not same:
                failures.append(f"{line} missed (BER {m['bit_error_rate']:.3f})")
            elif not good_offset:
                failures.append(f"{line} offset {m['offset']} instead of {expected}")
        elif sx != sy:
            strangers += 1
            if m is not None:
                bers_other.append(m["bit_error_rate"])
            if same:
                confused += 1
                failures.append(f"{x} and {y} are different titles, called the same: {m}")
    groups = kino.duplicate_groups({k: v[2] for k, v in titles.items()})
    expected_groups = sorted(sorted(k for k in titles if titles[k][0] == s) for s in {v[0] for v in titles.values()})
    groups_ok = sorted(groups) == expected_groups
    if not groups_ok:
        failures.append(f"groups {groups} instead of {expected_groups}")
    print(f"copies found: {found}/{copies} (re-encoded, scaled, cropped, trimmed, cut), offsets within 0.1 s: "
          f"{offsets_ok}/{copies}; BER of copies: max {max(bers_same, default=float('nan')):.3f}, "
          f"mean {sum(bers_same) / max(len(bers_same), 1):.3f}")
    print(f"different titles confused: {confused}/{strangers}; BER of the best alignment between different titles: "
          f"min {min(bers_other, default=float('nan')):.3f}; duplicate groups right: {groups_ok}")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
