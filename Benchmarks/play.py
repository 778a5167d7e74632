#!/usr/bin/env python3
"""The listening benchmark: how long `singlecast play N` takes to sound, beside mpv alone, and
how much of the position a SIGKILL of singlecast loses.

usage: Benchmarks/play.py [--runs N] [--kills N] [--no-build]

start:  the time from starting the command to mpv's first `playback-restart` (a Lua script in
        mpv writes a byte to a FIFO the benchmark reads), for a downloaded 10-minute WAV:
        `mpv --ao=null FILE` vs `singlecast play 1` (its player being the same mpv, named by
        SINGLECAST_PLAYER). Interleaved rounds; medians, and the median of per-round differences.
        Target: at most 60 ms more than mpv alone.
kills:  `singlecast play 1` plays in real time (--ao=null keeps time); after 4 to 12 s the
        benchmark asks mpv for time-pos over its IPC socket and SIGKILLs singlecast at once;
        the position lost is that time-pos minus the position the library kept.
        Target: at most 5 s each.
"""
import argparse, json, os, random, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time
import http.server, functools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINGLECAST = os.path.join(ROOT, ".build", "release", "singlecast")

LUA = """
local fifo = os.getenv("PLAY_BENCH_FIFO")
mp.register_event("playback-restart", function()
    if fifo then
        local f = io.open(fifo, "w"); f:write("x"); f:close(); fifo = nil
    end
    if os.getenv("PLAY_BENCH_QUIT") then mp.command("quit") end
end)
"""


def wav(path, seconds):
    subprocess.run(["sox", "-n", "-r", "8000", "-c", "1", "-b", "16", path, "synth", str(seconds), "sine", "440", "vol", "0.2"], check=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder):
    handler = functools.partial(QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def time_to_sound(cmd, env, fifo):
    """Seconds from starting cmd to the Lua script's byte in the FIFO; the command quits itself."""
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    start = time.perf_counter()
    process = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(fifo, "rb") as reader:
        reader.read(1)
    elapsed = time.perf_counter() - start
    process.wait(timeout=30)
    return elapsed


def mpv_socket(pid):
    for _ in range(500):
        try:
            children = open(f"/proc/{pid}/task/{pid}/children").read().split()
            for task in os.listdir(f"/proc/{pid}/task"):
                children += open(f"/proc/{pid}/task/{task}/children").read().split()
            for child in children:
                args = open(f"/proc/{child}/cmdline", "rb").read().split(b"\0")
                for arg in args:
                    if arg.startswith(b"--input-ipc-server="):
                        return arg.split(b"=", 1)[1].decode()
        except OSError:
            pass
        time.sleep(0.01)
    raise RuntimeError("no mpv socket")


def ask(path, command):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(path)
        client.sendall(json.dumps({"command": command, "request_id": 1}).encode() + b"\n")
        data = b""
        while True:
            data += client.recv(4096)
            for line in data.split(b"\n"):
                if line.strip():
                    message = json.loads(line)
                    if message.get("request_id") == 1:
                        return message.get("data")


def saved_position(env):
    listing = json.loads(subprocess.run([SINGLECAST, "episodes", "--json"], env=env, capture_output=True, check=True).stdout)
    return listing["episodes"][0]["position"] or 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "singlecast"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="singlecast-play-bench-")
    try:
        media = os.path.join(work, "media")
        os.makedirs(media)
        wav(os.path.join(media, "talk.wav"), 600)
        server = serve(media)
        feed = os.path.join(work, "show.xml")
        with open(feed, "w") as out:
            out.write(f"""<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title>
<item><title>Talk</title><guid>t</guid><enclosure url="http://127.0.0.1:{server.server_address[1]}/talk.wav" type="audio/wav" length="0"/></item>
</channel></rss>""")
        lua = os.path.join(work, "restart.lua")
        open(lua, "w").write(LUA)
        fifo = os.path.join(work, "restart.fifo")
        player = os.path.join(work, "bench-mpv")
        open(player, "w").write(f'#!/bin/sh\nexec mpv --ao=null --script={lua} "$@"\n')
        os.chmod(player, 0o755)
        runtime = os.path.join(work, "run")
        os.makedirs(runtime, mode=0o700)
        env = dict(os.environ, SINGLECAST_HOME=os.path.join(work, "home"), SINGLECAST_PLAYER=player, XDG_RUNTIME_DIR=runtime)
        subprocess.run([SINGLECAST, "episodes", feed], env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([SINGLECAST, "download", "1"], env=env, check=True, stdout=subprocess.DEVNULL)
        server.shutdown()
        file = os.path.join(work, "home", "Episodes", "Bench", "Talk.wav")
        assert os.path.exists(file), file

        quitting = dict(env, PLAY_BENCH_FIFO=fifo, PLAY_BENCH_QUIT="1")
        mpv = ["mpv", "--ao=null", "--no-video", "--no-terminal", f"--script={lua}"]
        contenders = [
            ("mpv --ao=null FILE", mpv + [file]),
            # The options Singlecast gives mpv that make it start faster (no youtube-dl hook).
            ("mpv --ao=null --ytdl=no FILE", mpv + ["--ytdl=no", file]),
            ("singlecast play 1", [SINGLECAST, "play", "1", "--from-start"]),
        ]
        rounds = [[time_to_sound(cmd, quitting, fifo) for _, cmd in contenders] for _ in range(args.runs)]
        print(f"time to first playback-restart, 10-minute WAV, median of {args.runs} interleaved rounds:")
        for index, (name, _) in enumerate(contenders):
            line = f"  {name:<30} {statistics.median(r[index] for r in rounds) * 1000:7.1f} ms"
            if index > 0:
                extra = statistics.median(r[index] - r[0] for r in rounds)
                line += f"   {extra * 1000:+7.1f} ms per round vs mpv FILE"
            print(line)
        print("  (target: singlecast play at most +60 ms)")

        rng = random.Random(17)
        losses = []
        for _ in range(args.kills):
            process = subprocess.Popen([SINGLECAST, "play", "1", "--from-start"], env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            path = mpv_socket(process.pid)
            time.sleep(rng.uniform(4, 12))
            heard = ask(path, ["get_property", "time-pos"])
            process.send_signal(signal.SIGKILL)
            process.wait()
            time.sleep(0.3)
            losses.append(heard - saved_position(env))
        print(f"position lost by SIGKILL of singlecast, {args.kills} kills after 4 to 12 s of playing:")
        print("  " + "  ".join(f"{loss:.1f}" for loss in losses) + " s")
        print(f"  median {statistics.median(losses):.1f} s, max {max(losses):.1f} s (target <= 5 s each)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
