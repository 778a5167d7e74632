#!/usr/bin/env python3
"""Kills the background daemon at random moments and checks nothing is lost.

usage: Benchmarks/daemon_kill.py [--kills 20] [--seed 1]

Queues 5 episodes of 64 MiB from a loopback nginx (rate-limited so that the downloads take
a while) with `singlecast download 1-5 --background`, then SIGKILLs the daemon at --kills
random moments, restarting it (`singlecast daemon`) after each kill. At the end it waits for
the downloads, counts the files byte-identical to the served ones, and reads from nginx's
access log how many bytes were sent in all, and so how many were sent again.
"""
import os, random, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINGLECAST = os.path.join(ROOT, ".build", "release", "singlecast")
SIZE = 64 << 20
COUNT = 5

NGINX_CONF = """
daemon off; worker_processes 1; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 64; }}
http {{
  log_format sent '$request_uri $status $body_bytes_sent'; access_log {work}/access.log sent;
  client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp; fastcgi_temp_path {work}/tmp;
  uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
  types {{ audio/mpeg mp3; application/rss+xml xml; }}
  server {{ listen 127.0.0.1:{port}; root {work}/www; location / {{ limit_rate {rate}; }} }}
}}
"""


def daemon_pid(home):
    try:
        pid = int(open(os.path.join(home, "daemon.lock")).read().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def wait_for(condition, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def serve_episodes(work, port, title):
    """Writes COUNT random episodes of SIZE bytes and their feed below `work`/www (nginx's root,
    with its temporary folder beside it); returns the folder and the episodes' file names."""
    www = os.path.join(work, "www")
    os.makedirs(www); os.makedirs(os.path.join(work, "tmp"))
    names = [f"episode{i}.mp3" for i in range(1, COUNT + 1)]
    for name in names:
        subprocess.run(["head", "-c", str(SIZE), "/dev/urandom"], stdout=open(os.path.join(www, name), "wb"), check=True)
    items = "".join(f'<item><title>{n}</title><guid>{n}</guid><enclosure url="http://127.0.0.1:{port}/{n}" '
                    f'type="audio/mpeg" length="{SIZE}"/></item>' for n in names)
    open(os.path.join(www, "feed.xml"), "w").write(
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title>{items}</channel></rss>')
    return www, names


def main():
    args = sys.argv[1:]
    kills = int(args[args.index("--kills") + 1]) if "--kills" in args else 20
    rng = random.Random(int(args[args.index("--seed") + 1]) if "--seed" in args else 1)
    subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "singlecast"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    work = tempfile.mkdtemp(prefix="singlecast-kill-")
    os.chmod(work, 0o755)
    home = os.path.join(work, "home")
    port = 19000 + os.getpid() % 1000
    www, names = serve_episodes(work, port, "Kill Test")
    conf = os.path.join(work, "nginx.conf")
    open(conf, "w").write(NGINX_CONF.format(work=work, port=port, rate="6m"))
    subprocess.run(["nginx", "-t", "-q", "-c", conf, "-p", work], check=True)
    nginx = subprocess.Popen(["nginx", "-c", conf, "-p", work], stderr=subprocess.DEVNULL)
    env = dict(os.environ, SINGLECAST_HOME=home)
    try:
        time.sleep(0.5)
        subprocess.run([SINGLECAST, "download", "1-5", "--background", "--feed", f"http://127.0.0.1:{port}/feed.xml"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        done = 0
        mid_transfer = 0
        folder = os.path.join(home, "Episodes", "Kill Test")
        for kill in range(kills):
            if not wait_for(lambda: daemon_pid(home) is not None, 15):
                sys.exit("the daemon did not start")
            time.sleep(rng.uniform(0.05, 1.5))
            pid = daemon_pid(home)
            if pid is None:
                break  # everything finished before this kill
            parts = [f for f in os.listdir(folder) if f.endswith(".part")] if os.path.isdir(folder) else []
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: daemon_pid(home) is None, 5)
            done = kill + 1
            mid_transfer += 1 if parts else 0
            subprocess.Popen([SINGLECAST, "daemon", "--idle-exit", "2"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(home, "daemon.log"), "a"),
                             start_new_session=True)
        finished = wait_for(lambda: all(os.path.exists(os.path.join(folder, n)) for n in names), 300)
        identical = sum(
            1 for n in names
            if os.path.exists(os.path.join(folder, n))
            and subprocess.run(["cmp", "-s", os.path.join(folder, n), os.path.join(www, n)]).returncode == 0)
        wait_for(lambda: daemon_pid(home) is None, 10)
        time.sleep(0.3)
        sent = sum(int(line.split()[2]) for line in open(os.path.join(work, "access.log"))
                   if line.split()[0].endswith(".mp3"))
        requests = sum(1 for line in open(os.path.join(work, "access.log")) if line.split()[0].endswith(".mp3"))
        total = COUNT * SIZE
        print(f"daemon SIGKILLed {done} times at random moments (seed-driven; {mid_transfer} with partial files "
              f"on disk), restarted with `singlecast daemon` after each")
        print(f"files byte-identical: {identical} of {COUNT}{'' if finished else ' (not all finished in time)'}")
        print(f"bytes sent by nginx: {sent / (1 << 20):.1f} MiB for {total / (1 << 20):.0f} MiB of episodes in "
              f"{requests} requests: {(sent - total) / (1 << 20):.1f} MiB sent again ({(sent - total) / total * 100:.2f} %)")
    finally:
        pid = daemon_pid(home)
        if pid:
            os.kill(pid, signal.SIGTERM)
        nginx.terminate(); nginx.wait()
        if "--keep" not in args:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
