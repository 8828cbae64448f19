"""Real PostgreSQL and Chroma servers for the tests marked ``servers`` (issue 16), started in temporary
folders on 127.0.0.1 and stopped after the session.

PostgreSQL comes from the distribution's packages (``initdb`` + ``pg_ctl`` from ``/usr/lib/postgresql/*/bin``
or the PATH); ``initdb`` refuses to run as root, so as root the cluster is made and run by the ``postgres``
user (or ``nobody``) through ``runuser``.  Chroma's server is ``chroma run`` from the chromadb package.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bin(name: str) -> str | None:
    """A PostgreSQL server program: the newest ``/usr/lib/postgresql/N/bin/NAME``, else the PATH's."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]) if
                   p.split("/")[4].isdigit() else 0)
    return found[-1] if found else shutil.which(name)


def missing_postgres() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None."""
    for prog in ("initdb", "pg_ctl"):
        if pg_bin(prog) is None:
            return f"PostgreSQL's {prog} is not installed (Debian: apt-get install postgresql; scripts/setup.sh does it)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is not installed (pip install 'psycopg[binary]'; scripts/setup.sh does it)"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root and runuser is missing (initdb refuses to run as root)"
    return None


def _as_user() -> tuple[list[str], str | None]:
    """The command prefix that runs a program as an unprivileged user (as root), and that user."""
    if os.geteuid() != 0:
        return [], None
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"], user
    raise RuntimeError("no unprivileged user (postgres, nobody) to run PostgreSQL as")


class PostgresServer:
    """A throwaway PostgreSQL cluster: ``url(db)`` gives a SQLAlchemy URL; :meth:`create_db` a fresh database."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="kith-pg-"))
        self.port = free_port()
        self.prefix, user = _as_user()
        if user:
            os.chmod(self.dir, 0o755)
            shutil.chown(self.dir, user=user)
        self.data = self.dir / "data"
        env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
        subprocess.run([*self.prefix, pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "kith", "-E", "UTF8",
                        "--locale=C.UTF-8", "--no-sync"], check=True, capture_output=True, env=env, timeout=120)
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off -c synchronous_commit=off "
                "-c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB")
        subprocess.run([*self.prefix, pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "server.log"), "-o", opts,
                        "-w", "-t", "60", "start"], check=True, capture_output=True, env=env, timeout=120)
        self._n = 0

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://kith@127.0.0.1:{self.port}/{db}"

    def create_db(self, prefix: str = "kith") -> str:
        """A new, empty database; returns its URL."""
        import psycopg

        self._n += 1
        name = f"{prefix}_{os.getpid()}_{self._n}"
        with psycopg.connect(f"postgresql://kith@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_db(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(f"postgresql://kith@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        subprocess.run([*self.prefix, pg_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


def chroma_bin() -> str | None:
    here = Path(sys.executable).parent / "chroma"
    return str(here) if here.exists() else shutil.which("chroma")


class ChromaServer:
    """``chroma run`` on 127.0.0.1 and a free port, in a temporary folder, telemetry off."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="kith-chroma-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        self.log = open(self.dir / "server.log", "wb")
        self.proc = subprocess.Popen([chroma_bin(), "run", "--path", str(self.dir / "data"), "--host", "127.0.0.1",
                                      "--port", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"chroma run did not start: {(self.dir / 'server.log').read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
