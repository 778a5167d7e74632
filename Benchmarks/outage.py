#!/usr/bin/env python3
"""Stops the server in the middle of the downloads and starts it again: nothing is typed.

usage: Benchmarks/outage.py [--outage 120] [--mode daemon|foreground|both] [--keep]

Serves 5 episodes of 64 MiB from a loopback nginx (rate-limited so that the downloads take a
while) and downloads them with `singlecast download 1-5 --background` (the daemon) or with a
foreground `singlecast download 1-5`. Once a third of the bytes have arrived, nginx is stopped
for --outage seconds (default two minutes), then started again on the same port. Nothing else is
typed: the downloads must wait for the server and resume by themselves.

Reported per mode: the files byte-identical to the served ones; the bytes nginx sent again
(what its worker wrote, `wchar` of /proc/PID/io read while it is frozen just before it is
killed and at the end, less the episodes' size: headers, the feed and the access log are in
it too; target under 1 %; nginx's access log cannot say, as a killed worker logs nothing); and
the time from the server's return until no download is waiting for a retry any more, read
every 0.2 s from `singlecast downloads --json` (target under 60 s for a two-minute outage).
"""
import json, os, shutil, signal, subprocess, sys, tempfile, time  # noqa: E401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_kill import COUNT, NGINX_CONF, ROOT, SINGLECAST, SIZE, daemon_pid, serve_episodes, wait_for  # noqa: E402

RATE = "4m"


class Nginx:
    def __init__(self, work, port):
        self.conf = os.path.join(work, "nginx.conf")
        self.work = work
        self.port = port
        open(self.conf, "w").write(NGINX_CONF.format(work=work, port=port, rate=RATE))
        subprocess.run(["nginx", "-t", "-q", "-c", self.conf, "-p", work], check=True)
        self.process = None
        self.written = 0

    def start(self):
        self.process = subprocess.Popen(["nginx", "-c", self.conf, "-p", self.work], stderr=subprocess.DEVNULL)
        wait_for(lambda: subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{self.port}/feed.xml"])
                 .returncode == 0, 10)

    def workers(self):
        pids = []
        for name in os.listdir("/proc"):
            try:
                if name.isdigit() and int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1]) == self.process.pid:
                    pids.append(int(name))
            except OSError:
                continue
        return pids

    def stop(self):
        # The worker is frozen, its bytes written are counted, then it is killed: every
        # connection ends at once, as when a server goes away.
        workers = self.workers()
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        for pid in workers:
            self.written += next(int(line.split()[1]) for line in open(f"/proc/{pid}/io") if line.startswith("wchar:"))
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        self.process.terminate()
        self.process.wait()


def downloads(env):
    result = subprocess.run([SINGLECAST, "downloads", "--json"], env=env, capture_output=True, text=True)
    try:
        return json.loads(result.stdout)
    except ValueError:
        return []


def bytes_on_disk(folder):
    if not os.path.isdir(folder):
        return 0
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def run(mode, work, www, names, port, outage):
    home = os.path.join(work, f"home-{mode}")
    folder = os.path.join(home, "Episodes", "Outage Test")
    env = dict(os.environ, SINGLECAST_HOME=home)
    nginx = Nginx(work, port)
    nginx.start()
    feed = f"http://127.0.0.1:{port}/feed.xml"
    foreground = None
    started = time.time()
    try:
        if mode == "daemon":
            subprocess.run([SINGLECAST, "download", "1-5", "--background", "--feed", feed], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        else:
            foreground = subprocess.Popen([SINGLECAST, "download", "1-5", "--feed", feed], env=env,
                                          stdout=open(os.path.join(work, f"{mode}.out"), "w"),
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if not wait_for(lambda: bytes_on_disk(folder) >= COUNT * SIZE // 3, 600):
            sys.exit(f"{mode}: a third of the bytes did not arrive")
        nginx.stop()
        stopped_at = time.time()
        time.sleep(outage)
        nginx.start()
        returned = time.time()
        recovered = None
        while time.time() - returned < 600:
            states = [d["state"] for d in downloads(env)]
            if states and "retrying" not in states:
                recovered = time.time() - returned
                break
            time.sleep(0.2)
        finished = wait_for(lambda: all(os.path.exists(os.path.join(folder, n)) for n in names), 900)
        if foreground:
            foreground.wait(60)
        elapsed = time.time() - started
        identical = sum(
            1 for n in names
            if os.path.exists(os.path.join(folder, n))
            and subprocess.run(["cmp", "-s", os.path.join(folder, n), os.path.join(www, n)]).returncode == 0)
        if mode == "daemon":
            pid = daemon_pid(home)
            if pid:
                os.kill(pid, signal.SIGTERM)
                wait_for(lambda: daemon_pid(home) is None, 10)
    finally:
        if foreground and foreground.poll() is None:
            foreground.terminate()
        nginx.stop()
    total = COUNT * SIZE
    sent = nginx.written
    print(f"{mode}: nginx stopped {stopped_at - started:.1f} s in for {outage} s; "
          f"files byte-identical: {identical} of {COUNT}{'' if finished else ' (not all finished in time)'}; "
          f"all done {elapsed:.1f} s after the start, no command typed")
    print(f"{mode}: every transfer running again {recovered:.1f} s after the server's return"
          if recovered is not None else f"{mode}: some transfer still waiting 600 s after the server's return")
    print(f"{mode}: bytes written by nginx: {sent / (1 << 20):.2f} MiB for {total / (1 << 20):.0f} MiB of episodes: "
          f"{(sent - total) / (1 << 20):.2f} MiB sent again ({(sent - total) / total * 100:.3f} %)")
    if foreground:
        print(f"{mode}: exit status {foreground.returncode}")


def main():
    args = sys.argv[1:]
    outage = float(args[args.index("--outage") + 1]) if "--outage" in args else 120
    mode = args[args.index("--mode") + 1] if "--mode" in args else "both"
    subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "singlecast"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    work = tempfile.mkdtemp(prefix="singlecast-outage-")
    os.chmod(work, 0o755)
    port = 20000 + os.getpid() % 1000
    www, names = serve_episodes(work, port, "Outage Test")
    try:
        for each in (["daemon", "foreground"] if mode == "both" else [mode]):
            run(each, work, www, names, port, outage)
    finally:
        if "--keep" not in args:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
