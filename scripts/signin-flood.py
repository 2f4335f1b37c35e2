#!/usr/bin/env python3
"""Sign-in flood: measures that kino-server's memory stays flat under failed sign-ins.

Starts kino-server (the debug build; PROFILE=release for a release build) on 127.0.0.1 with an
ephemeral port and a temporary data directory, takes one form cookie and CSRF token as any
visitor can, then sends from loopback only, one after another:

  1. OVERSIZED attempts (default 3,000) whose e-mail address is 2 MB, each one distinct: the
     attack of Hardening III item 1 (before it, each was kept whole in the failure throttle
     for 15 minutes);
  2. DISTINCT attempts (default 3,000) with distinct well-formed 254-byte addresses, which reach
     the throttle (and argon2 until the per-source limit refuses them).

It prints the server's resident memory (VmRSS, and the peak VmHWM, from /proc/<pid>/status)
before and after each phase, and the answers' status codes. Extra arguments are passed to
kino-server (e.g. `--sign-in-failures-per-source 0` to let every attempt reach argon2 and the
address map). Linux only (/proc). Usage:

    scripts/signin-flood.py [kino-server flags...]
    OVERSIZED=300 DISTINCT=300 scripts/signin-flood.py
"""

import collections
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss(pid):
    """VmRSS and VmHWM of `pid`, in MiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def post(port, cookie, body):
    """One sign-in POST on a new connection; its status, or the error that ended it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(
            "POST",
            "/app/sign-in",
            body=body,
            headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"},
        )
        res = conn.getresponse()
        res.read()
        return res.status
    except (BrokenPipeError, ConnectionResetError):
        # The server answered 413 and closed before the whole 2 MB body was sent.
        return "closed after the form limit"
    finally:
        conn.close()


def main():
    profile = os.environ.get("PROFILE", "debug")
    oversized = int(os.environ.get("OVERSIZED", "3000"))
    distinct = int(os.environ.get("DISTINCT", "3000"))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    build = ["cargo", "build", "-q", "-p", "kino-server", "--bin", "kino-server"]
    subprocess.run(build + (["--release"] if profile == "release" else []), cwd=ROOT, check=True)
    binary = os.path.join(target, profile, "kino-server")
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as media:
        server = subprocess.Popen(
            [binary, "--data-dir", data, "--media-root", media, "--bind", "127.0.0.1:0", "--demo", "false",
             "--no-models", "--fetch-models", "never", *sys.argv[1:]],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        try:
            port = None
            for line in server.stdout:
                m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
                if m:
                    port = int(m.group(1))
                    break
            if port is None:
                sys.exit("kino-server did not start")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/app/sign-in")
            res = conn.getresponse()
            res.read()
            cookie = res.getheader("Set-Cookie").split(";")[0]
            csrf = cookie.split("=", 1)[1]
            print(f"kino-server ({profile}) pid {server.pid} on port {port}, flags: {' '.join(sys.argv[1:]) or '(defaults)'}")
            print(f"{'phase':<44} {'VmRSS MiB':>10} {'VmHWM MiB':>10}  answers")
            now, peak = rss(server.pid)
            print(f"{'before':<44} {now:>10.1f} {peak:>10.1f}")
            phases = [
                (f"{oversized} x 2 MB distinct addresses", oversized, lambda i: f"{i:08d}" + "a" * 2_000_000 + "@example.com"),
                (f"{distinct} x 254-byte distinct addresses", distinct, lambda i: f"{i:08d}{'b' * 56}@{'c' * 63}.{'d' * 63}.{'e' * 61}"),
            ]
            for name, count, address in phases:
                answers = collections.Counter()
                started = time.monotonic()
                for i in range(count):
                    body = urllib.parse.urlencode({"csrf": csrf, "email": address(i), "password": "wrong password"})
                    answers[post(port, cookie, body)] += 1
                seconds = time.monotonic() - started
                now, peak = rss(server.pid)
                shown = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items(), key=str))
                print(f"{name:<44} {now:>10.1f} {peak:>10.1f}  {shown} ({seconds:.0f} s)")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
