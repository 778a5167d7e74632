#!/usr/bin/env python3
"""Runs one libFuzzer target of Fuzz/ for a given time and reports what it did.

    Fuzz/run.py TARGET SECONDS

TARGET is feed-parse, feed-dates, episode-duration, opml-reader or show-notes, built by
Fuzz/build.sh.
The corpus (Fuzz/.build/corpus/TARGET) is seeded from Fixtures/ first: whole documents for
the feed and OPML targets, the text of the date and duration elements of the fixture feeds
(and the strings of the parsers' test tables) for the others; the show notes of the fixture
feeds and of Fixtures/shownotes for show-notes. The run is niced, limited to
256 MiB and 1 s per input; it prints executions per second, coverage (libFuzzer's cov: and
ft:), and the findings (crash-, leak-, timeout-, oom- files), and keeps the log beside them.
"""
import gzip
import html
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "Fuzz" / ".build"
FIXTURES = ROOT / "Fixtures"
TESTS = ROOT / "Tests" / "SinglecastKitTests" / "Feed"

# target: (maximum input length, dictionary, what the seeds are)
TARGETS = {
    "feed-parse": (65536, "xml.dict", "documents"),
    "opml-reader": (65536, "xml.dict", "opml"),
    "feed-dates": (128, "dates.dict", "dates"),
    "episode-duration": (64, None, "durations"),
    "show-notes": (16384, "html.dict", "notes"),
}

# kind: (the elements whose text seeds it, the parser's test table)
VALUES = {
    "dates": (rb"<(pubDate|published|updated|dc:date|lastBuildDate)\b[^>]*>(?P<text>[^<]*)<", "RFC822DateTests.swift"),
    "durations": (rb"<itunes:duration\b[^>]*>(?P<text>[^<]*)<", "EpisodeDurationTests.swift"),
}

# The show notes of a feed: the text of its description elements, entities and CDATA undone.
NOTES = rb"<(description|content:encoded|itunes:summary)\b[^>]*>(?:<!\[CDATA\[)?(?P<text>.*?)(?:\]\]>)?</\1>"


def fixture_feeds():
    for path in sorted(list((FIXTURES / "feeds").iterdir()) + list((FIXTURES / "cli").iterdir())):
        data = path.read_bytes()
        yield path.name, gzip.decompress(data) if path.suffix == ".gz" else data


def table_strings(test_file):
    """The string literals of a parser's test tables."""
    text = (TESTS / test_file).read_bytes()
    return [m.encode() for m in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text.decode())]


def seeds(kind):
    if kind == "documents":
        yield from fixture_feeds()
    elif kind == "notes":
        for path in sorted((FIXTURES / "shownotes").iterdir()):
            yield path.name, path.read_bytes()
        for name, data in fixture_feeds():
            for index, match in enumerate(re.finditer(NOTES, data)):
                yield f"{name}-{index}", html.unescape(match.group("text").decode(errors="replace")).encode()
        for index, value in enumerate(table_strings("ShowNotesTests.swift")):
            yield f"table-{index}", value
    elif kind == "opml":
        for path in sorted((FIXTURES / "opml").iterdir()):
            yield path.name, path.read_bytes()
    else:
        pattern, table = VALUES[kind]
        yield from values(pattern, table)


def values(pattern, table):
    """The text of the elements `pattern` finds in the fixture feeds, and the strings of the
    test table `table`."""
    for name, data in fixture_feeds():
        for index, match in enumerate(re.finditer(pattern, data)):
            yield f"{name}-{index}", match.group("text")
    for index, value in enumerate(table_strings(table)):
        yield f"table-{index}", value


def triage(binary, finding):
    """For a timeout, how long the input takes when run alone: libFuzzer's timer counts wall
    time, so on a loaded machine a niced run can be descheduled past the limit."""
    if not finding.name.startswith("timeout-"):
        return ""
    result = subprocess.run([str(binary), "-runs=3", "-timeout=10", str(finding)], capture_output=True, text=True,
                            env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
    times = [int(t) for t in re.findall(r"^Executed .* in (\d+) ms", result.stderr, re.M)]
    if times and max(times) < 1000:
        return f" (not reproduced: {max(times)} ms when run alone; the machine was overloaded)"
    return f" (reproduced: {max(times) if times else '?'} ms when run alone)"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TARGETS or not sys.argv[2].isdigit():
        sys.exit(f"usage: Fuzz/run.py {{{','.join(TARGETS)}}} SECONDS")
    target, seconds = sys.argv[1], int(sys.argv[2])
    binary = BUILD / target
    if not binary.exists():
        sys.exit(f"{binary} is missing: run Fuzz/build.sh {target} first")
    max_len, dictionary, kind = TARGETS[target]
    corpus = BUILD / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    for name, data in seeds(kind):
        (corpus / f"seed-{name}").write_bytes(data)
    findings = BUILD / "findings" / target
    findings.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    log = findings / f"run-{stamp}.log"
    # Fork mode: one child process at a time does the fuzzing, and the run goes on after a
    # finding (each is saved under findings/), so the whole time is used.
    command = ["nice", "-n", "19", str(binary), str(corpus), "-fork=1", "-ignore_crashes=1",
               "-ignore_timeouts=1", "-ignore_ooms=1", f"-max_total_time={seconds}", "-rss_limit_mb=256",
               "-timeout=1", f"-max_len={max_len}", f"-artifact_prefix={findings}/"]
    if dictionary:
        command.append(f"-dict={ROOT / 'Fuzz' / dictionary}")
    # libFuzzer's own handler reports a Swift trap (with the sanitizer's symbolized stack);
    # Swift's backtracer would take over, slowly, and trip ASan as it reads the process.
    # ASan keeps freed memory in a quarantine of 256 MiB by default, which alone would reach the
    # RSS limit after enough inputs (the OOM then names an innocent input, or kills fork mode's
    # parent): a small quarantine leaves the limit to what the parsers hold.
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no", ASAN_OPTIONS="quarantine_size_mb=16")
    suppressions = ROOT / "Fuzz" / "lsan.supp"
    if suppressions.exists():
        env["LSAN_OPTIONS"] = f"suppressions={suppressions}:print_suppressions=0"
    before = {p.name for p in findings.iterdir()}
    started = time.time()
    with open(log, "wb") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    elapsed = time.time() - started
    text = log.read_text(errors="replace")
    # "#N: cov: C ft: F corp: K exec/s: E oom/timeout/crash: O/T/X time: Ss job: J dft_time: D"
    status_lines = re.findall(r"^#(\d+): cov: (\d+) ft: (\d+) corp: (\d+).*?oom/timeout/crash: (\S+)", text, re.M)
    executions = int(status_lines[-1][0]) if status_lines else 0
    new = sorted(p.name for p in findings.iterdir() if p.name not in before and not p.name.startswith("run-"))
    version = (BUILD / f"{target}.version").read_text().strip() if (BUILD / f"{target}.version").exists() else "?"
    print(f"target: {target} (built from {version})")
    print(f"time: {elapsed:.0f} s, executions: {executions}, exec/s: {executions / elapsed:.0f}")
    if status_lines:
        last = status_lines[-1]
        print(f"coverage: cov {last[1]}, ft {last[2]}; corpus {last[3]} inputs; oom/timeout/crash events {last[4]}")
    print(f"findings: {len(new)}" + "".join(f"\n  {findings / name}{triage(binary, findings / name)}" for name in new))
    print(f"log: {log}")


if __name__ == "__main__":
    main()
