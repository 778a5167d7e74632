#!/usr/bin/env python3
"""The terminal UI's figures in a library of 200 podcasts and 100,000 episodes.

A world of 199 feeds of 402 items, one of 20,000 (genfeed.py) and one of a single episode with
audio, served by nginx on loopback, is imported into a fresh library; then, with the UI in a tmux pane of 120x40 (release build):
  first frame   from launch to the first screen that shows a podcast's title (median of runs),
                interleaved with castero's (pip install castero): the same OPML imported into a
                private HOME/XDG_CONFIG_HOME/XDG_DATA_HOME with `castero --import`, launched in the
                same pane size; also the first screen that lists the first podcast's episodes
  key           from a key sent to tmux to the changed screen: `j` down the 20,000-episode list,
                and `j` in the podcasts pane (the next podcast's episodes read), p50 and p99
                (tmux's own round trip included: a capture of an unchanged screen is printed
                beside them as the floor)
  idle          CPU over 10 s with nothing happening, and the screen writes (strace) meanwhile
  playing       screen writes a second while an episode plays (mpv --ao=null, 10 s)
  memory        peak RSS after paging through the 20,000 episodes
  library reads `singlecast podcasts` and `singlecast episodes @1` as whole processes (medians)

Usage: Benchmarks/ui.py [--runs N] [--keys N]
  SINGLECAST_BIN  a folder holding the `singlecast` to measure (default: the release build)
  CASTERO         castero's program (default: the `castero` beside this python, else on PATH)
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time, wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BIN, GENFEED, NGINX_CONF  # noqa: E402

BIN = os.environ.get("SINGLECAST_BIN", BIN)

SMALL, SMALL_ITEMS, LARGE_ITEMS = 199, 402, 20_000
SOCKET = f"sc-ui-bench-{os.getpid()}"


def tmux(*args, capture=False):
    result = subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", *args], check=True,
                            stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.stdout.decode() if capture else None


def screen():
    return tmux("capture-pane", "-p", "-t", "ui", capture=True)


def wait_for(condition, timeout=30.0):
    deadline = time.perf_counter() + timeout
    while True:
        text = screen()
        if condition(text):
            return text
        if time.perf_counter() > deadline:
            raise RuntimeError("the screen never showed what was awaited:\n" + text)


class World:
    def __init__(self, work):
        self.www = os.path.join(work, "www")
        os.makedirs(self.www)
        self.port = 20000 + os.getpid() % 1000
        names = ["audio"] + [f"feed{i:03d}" for i in range(SMALL)] + ["large"]
        for name in names[1:]:
            items = LARGE_ITEMS if name == "large" else SMALL_ITEMS
            path = os.path.join(self.www, name + ".xml")
            subprocess.run([sys.executable, GENFEED, str(items), path], check=True, stdout=subprocess.DEVNULL)
            # Every genfeed feed has the same title: each gets its own, to be found on the screen.
            text = open(path).read().replace("<title>Synthetic Benchmark Cast</title>", f"<title>{name}</title>", 1)
            open(path, "w").write(text)
        # A show with audio on loopback, to play (genfeed's enclosures point nowhere reachable).
        with wave.open(os.path.join(self.www, "talk.wav"), "wb") as audio:
            audio.setnchannels(1)
            audio.setsampwidth(2)
            audio.setframerate(8000)
            audio.writeframes(b"\0\0" * 8000 * 600)
        open(os.path.join(self.www, "audio.xml"), "w").write(
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>audio</title><item><title>Talk</title>'
            f'<guid>talk</guid><enclosure url="http://127.0.0.1:{self.port}/talk.wav" type="audio/wav"/></item>'
            f'</channel></rss>\n')
        self.opml = os.path.join(work, "world.opml")
        outlines = "\n".join(f'<outline type="rss" text="{n}" xmlUrl="http://127.0.0.1:{self.port}/{n}.xml"/>' for n in names)
        open(self.opml, "w").write(f'<?xml version="1.0"?><opml version="2.0"><head/><body>\n{outlines}\n</body></opml>\n')
        conf = os.path.join(work, "nginx.conf")
        open(conf, "w").write(NGINX_CONF.format(work=work, port=self.port).replace(f"root {work}/www;", f"root {self.www};"))
        os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
        self.nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stop(self):
        self.nginx.terminate()
        self.nginx.wait()


def start_ui(env, command=None):
    assignments = " ".join(f"{k}='{v}'" for k, v in env.items())
    command = command or f"{BIN}/singlecast ui"
    started = time.perf_counter()
    tmux("new-session", "-d", "-s", "ui", "-x", "120", "-y", "40", f"env -i {assignments} {command}; sleep 600")
    return started


def castero_program():
    beside = os.path.join(os.path.dirname(sys.executable), "castero")  # not pyenv's shim, which costs a shell
    return os.environ.get("CASTERO") or (beside if os.path.exists(beside) else shutil.which("castero"))


def castero_setup(work, opml):
    """castero with a private HOME and XDG dirs holding the same OPML's feeds, or None when absent."""
    program = castero_program()
    if not program:
        print("castero: not installed (pip install castero), not compared")
        return None
    home = os.path.join(work, "castero-home")
    env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"), "XDG_DATA_HOME": os.path.join(home, "data"),
           "TERM": "screen", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    os.makedirs(home)
    version = subprocess.run([program, "--version"], env=env, capture_output=True, text=True).stdout.strip()
    started = time.perf_counter()
    imported = subprocess.run([program, "--import", opml], env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    failed = [line for line in imported.stdout.splitlines() if line.startswith("ERROR")]
    database = os.path.join(env["XDG_DATA_HOME"], "castero", "castero.db")
    if imported.returncode != 0 or not os.path.exists(database):
        print("castero: the import failed, not compared:\n" + imported.stdout[-2000:] + imported.stderr[-2000:])
        return None
    counts = subprocess.run(
        ["sqlite3", database,
         "SELECT (SELECT COUNT(*) FROM feed) || ' podcasts, ' || (SELECT COUNT(*) FROM episode) || ' episodes'"],
        capture_output=True, text=True).stdout.strip()
    print(f"castero: {version}, `castero --import` took {took:.1f} s: {counts}"
          + (f"; {len(failed)} not imported: " + "; ".join(failed) if failed else ""))
    return env, program


def ui_pid():
    shell = int(tmux("display-message", "-p", "-t", "ui", "#{pane_pid}", capture=True))
    children = open(f"/proc/{shell}/task/{shell}/children").read().split()
    return int(children[0])


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def screen_writes(pid, seconds):
    """write(2) calls to the terminal (descriptor 1) by the UI in `seconds`."""
    log = tempfile.mktemp()
    tracer = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=write,writev", "-e", "signal=none", "-o", log,
                               "-p", str(pid)], stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    tracer.terminate()
    tracer.wait()
    text = open(log).read()
    os.unlink(log)
    return len(re.findall(r"\bwritev?\(1,", text))


def key_latencies(key, count, changed):
    """Seconds from each `key` to a screen that `changed(before, after)` accepts."""
    times = []
    for _ in range(count):
        before = screen()
        start = time.perf_counter()
        tmux("send-keys", "-t", "ui", key)
        wait_for(lambda text: changed(before, text))
        times.append(time.perf_counter() - start)
    return times


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--keys", type=int, default=200)
    args = parser.parse_args()
    if not os.path.exists(os.path.join(BIN, "singlecast")):
        sys.exit("build the release binary first: swift build -c release --product singlecast")
    work = tempfile.mkdtemp(prefix="singlecast-ui-bench-")
    os.chmod(work, 0o755)  # nginx's worker reads the feeds as another user
    world = World(work)
    try:
        home = os.path.join(work, "home")
        env = {"SINGLECAST_HOME": home, "TERM": "screen", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
               "SINGLECAST_PLAYER": os.path.join(work, "silent-mpv")}
        open(env["SINGLECAST_PLAYER"], "w").write('#!/bin/sh\nexec mpv --ao=null "$@"\n')
        os.chmod(env["SINGLECAST_PLAYER"], 0o755)
        imported = subprocess.run([f"{BIN}/singlecast", "import", world.opml], env=env, capture_output=True, text=True)
        if imported.returncode != 0:
            sys.exit("the import failed:\n" + imported.stdout[-2000:] + imported.stderr[-2000:])
        counts = subprocess.run(
            ["sqlite3", os.path.join(home, "library.sqlite"),
             "SELECT (SELECT COUNT(*) FROM podcast) || ' podcasts, ' || (SELECT COUNT(*) FROM episode) || ' episodes'"],
            capture_output=True, text=True).stdout.strip()
        print(f"library: {counts}")

        castero = castero_setup(work, world.opml)

        def launch(start, title, episodes):
            """Seconds to the first screen with `title`, then to one with `episodes` too."""
            started = start()
            wait_for(lambda text: title in text)
            first = time.perf_counter() - started
            wait_for(lambda text: episodes in text)
            listed = time.perf_counter() - started
            tmux("kill-server")
            time.sleep(0.2)
            return first, listed

        def floor():
            return launch(lambda: start_ui({}, "echo feed000"), "feed000", "feed000")

        # Singlecast's first podcast is `audio` (its episode `Talk`); castero's is feed000 (it
        # refuses `audio`, which has no link or description), whose newest is Episode 402.
        def singlecast():
            return launch(lambda: start_ui(env), "feed000", "Talk")

        def castero_ui():
            return launch(lambda: start_ui(castero[0], castero[1]), "feed000", "Episode 402")

        # One unmeasured launch of each first (page cache, castero's first config), then
        # interleaved: the floor (a fresh tmux server whose pane only prints the title),
        # Singlecast, castero, in turn.
        singlecast()
        if castero:
            castero_ui()
        floors, frames, theirs = [], [], []
        for _ in range(args.runs):
            floors.append(floor()[0])
            frames.append(singlecast())
            if castero:
                theirs.append(castero_ui())

        def ms(values):
            return f"median {statistics.median(values) * 1000:.1f} ms (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"

        print(f"first frame with podcast titles: {ms([f for f, _ in frames])}; {args.runs} runs; "
              f"tmux starting and printing a line: {statistics.median(floors) * 1000:.1f} ms")
        print(f"first frame listing the first podcast's episodes: {ms([e for _, e in frames])}")
        if castero:
            print(f"castero, first frame with podcast titles: {ms([f for f, _ in theirs])}")
            print(f"castero, first frame listing the first podcast's episodes: {ms([e for _, e in theirs])}")
            ours, their = statistics.median([f for f, _ in frames]), statistics.median([f for f, _ in theirs])
            ours_listed, their_listed = statistics.median([e for _, e in frames]), statistics.median([e for _, e in theirs])
            print(f"side by side, first frame with podcast titles: Singlecast {ours * 1000:.1f} ms, "
                  f"castero {their * 1000:.1f} ms: {ours / their:.3f} of castero's time (1/{their / ours:.1f}); "
                  f"with episodes listed: {ours_listed * 1000:.1f} ms against {their_listed * 1000:.1f} ms "
                  f"(1/{their_listed / ours_listed:.1f})")

        start_ui(env)
        wait_for(lambda text: "feed000" in text)
        pid = ui_pid()
        floor = key_latencies("Escape", 20, lambda before, after: True)
        # The large feed is subscribed last: G in the podcasts pane selects it.
        tmux("send-keys", "-t", "ui", "G")
        wait_for(lambda text: "Episodes (20000)" in text)
        tmux("send-keys", "-t", "ui", "Tab")
        time.sleep(0.3)
        down = key_latencies("j", args.keys, lambda before, after: before != after)
        tmux("send-keys", "-t", "ui", "BTab", "g")
        time.sleep(0.3)
        podcasts = key_latencies("j", min(args.keys, SMALL - 1), lambda before, after: before != after)
        print(f"tmux round trip (a key that changes nothing): p50 {percentile(floor, .5) * 1000:.1f} ms")
        print(f"key j down the 20,000-episode list: p50 {percentile(down, .5) * 1000:.1f} ms, "
              f"p99 {percentile(down, .99) * 1000:.1f} ms ({len(down)} keys)")
        print(f"key j to the next podcast (its episodes read): p50 {percentile(podcasts, .5) * 1000:.1f} ms, "
              f"p99 {percentile(podcasts, .99) * 1000:.1f} ms ({len(podcasts)} keys)")

        time.sleep(2)
        before = cpu_seconds(pid)
        writes = screen_writes(pid, 10)
        idle = (cpu_seconds(pid) - before) / 10
        print(f"idle: {idle * 100:.2f} % of a core, {writes} screen writes in 10 s")

        # The show with audio is the first podcast.
        tmux("send-keys", "-t", "ui", "g")
        wait_for(lambda text: "Episodes (1): audio" in text)
        tmux("send-keys", "-t", "ui", "Tab", "Enter")
        wait_for(lambda text: "▶ Talk" in text and "/ 10:00" in text)
        time.sleep(1)
        writes = screen_writes(pid, 10)
        print(f"playing: {writes / 10:.1f} screen writes a second")
        tmux("send-keys", "-t", "ui", "p")

        tmux("send-keys", "-t", "ui", "BTab", "G", "Tab")
        for _ in range(3):
            tmux("send-keys", "-t", "ui", "G", "g")
        for _ in range(100):
            tmux("send-keys", "-t", "ui", "PPage")
        time.sleep(1)
        rss = [line for line in open(f"/proc/{pid}/status") if line.startswith("VmHWM")][0].split()[1]
        print(f"memory: peak {int(rss) / 1024:.1f} MiB")
        tmux("send-keys", "-t", "ui", "q")
        time.sleep(1)
        tmux("kill-server")

        for arguments in (["podcasts"], ["episodes", "@1"]):
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                subprocess.run([f"{BIN}/singlecast", *arguments], env=env, check=True, stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - started)
            print(f"singlecast {' '.join(arguments)}: median {statistics.median(times) * 1000:.1f} ms")
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], stderr=subprocess.DEVNULL)
        world.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
