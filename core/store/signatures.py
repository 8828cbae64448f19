"""A flat, mmap'd, append-only file of 1024-byte HDC signatures, addressed by row (seed 001, layer 3).

Layout on disk, for a file ``NAME`` (e.g. ``signatures.dat``):

* ``NAME`` — row ``i`` is bytes ``[1024·i, 1024·(i+1))``: one packed 8192-bit hypervector
  (``core.hdc``).  No header: the row count is ``size // 1024``.  Rows are never
  rewritten except to zero them (invalidation) and by :meth:`SignatureFile.compact`.
* ``NAME.sketch`` — row ``i`` is the first ``sketch_bytes`` bytes of row ``i`` (a
  shorter Charikar/HDC signature: each bit is an independent estimate, so the prefix is
  a coarse but unbiased similarity).  Scanning it first lets a search touch
  ``sketch_bytes/1024`` of the bytes before re-ranking a short list on full rows.
* ``NAME.invalid`` — the invalidated row numbers, little-endian int64, appended.

All reads go through read-only ``numpy.memmap`` views that are re-mapped when the
file grows.  One writer at a time across processes: appends, invalidations and compaction run
under the data folder's writer lock (``core.store.lock``, held by the app's writer thread), and
every append takes its first row number from the file's own size at that moment, not from a
counter kept elsewhere — two processes can never be handed the same row.  A torn tail (a partial
row left by a crash mid-write) is ignored by readers and cut off by the next append.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from core.errors import StoreError
from core.hdc import NBYTES


class SignatureFile:
    """Append-only rows of ``uint8 (1024,)`` signatures in a flat file, plus a prefix sketch.

    Args:
        path: the data file (created empty if missing; parent folders too).
        sketch_bytes: bytes per sketch row (0 disables the sketch); default 32 (256 bits).
        durable: fsync after every append/invalidate (off for bulk loads and benchmarks).

    Opening never writes: a torn tail or a sketch that does not match is repaired by the next
    write (:meth:`append`, :meth:`repair`), under the writer lock.
    """

    def __init__(self, path: Path, sketch_bytes: int = 32, durable: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not 0 <= sketch_bytes <= NBYTES or sketch_bytes % 8:
            raise ValueError("sketch_bytes must be a multiple of 8 in 0..1024")
        self.sketch_bytes = sketch_bytes
        self.durable = durable
        self.sketch_path = self.path.with_name(self.path.name + ".sketch")
        self.invalid_path = self.path.with_name(self.path.name + ".invalid")
        self._lock = threading.RLock()
        self._rows_map: np.memmap | None = None
        self._sketch_map: np.memmap | None = None
        self._mapped_n = -1
        self._n = 0
        self.refresh()

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def refresh(self) -> int:
        """Re-read the row count from the file (another process may have appended); returns it."""
        with self._lock:
            n = self._size() // NBYTES
            if n != self._n:
                self._n = n
                self._mapped_n = -1
            return n

    @property
    def torn(self) -> int:
        """Bytes of a partial row at the end of the file (left by a crash mid-append); 0 when none."""
        return self._size() % NBYTES

    def _sketch_rows(self) -> int:
        try:
            return self.sketch_path.stat().st_size // self.sketch_bytes if self.sketch_bytes else 0
        except FileNotFoundError:
            return 0

    # ---- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._n

    def _remap(self) -> None:
        if self._mapped_n == self._n:
            return
        if self._n == 0:
            self._rows_map = np.zeros((0, NBYTES), dtype=np.uint8)
            self._sketch_map = np.zeros((0, self.sketch_bytes), dtype=np.uint8)
        else:
            self._rows_map = np.memmap(self.path, dtype=np.uint8, mode="r", shape=(self._n, NBYTES))
            if self.sketch_bytes:
                have = min(self._sketch_rows(), self._n)
                if have == self._n:
                    self._sketch_map = np.memmap(self.sketch_path, dtype=np.uint8, mode="r",
                                                 shape=(self._n, self.sketch_bytes))
                else:  # a crash between the two appends: the missing tail comes from the rows themselves
                    sk = np.empty((self._n, self.sketch_bytes), dtype=np.uint8)
                    if have:
                        sk[:have] = np.memmap(self.sketch_path, dtype=np.uint8, mode="r",
                                              shape=(have, self.sketch_bytes))
                    sk[have:] = self._rows_map[have:, :self.sketch_bytes]
                    self._sketch_map = sk
        self._mapped_n = self._n

    def rows(self) -> np.ndarray:
        """Every row as a read-only ``uint8 (n, 1024)`` memmap (zero rows are invalidated)."""
        with self._lock:
            self._remap()
            return self._rows_map

    def sketch(self) -> np.ndarray:
        """The sketch: read-only ``uint8 (n, sketch_bytes)`` memmap.

        Raises:
            StoreError: the file was opened with ``sketch_bytes=0``.
        """
        if not self.sketch_bytes:
            raise StoreError(f"{self.path}: opened without a sketch")
        with self._lock:
            self._remap()
            return self._sketch_map

    def get(self, idx) -> np.ndarray:
        """Copies of rows ``idx`` (int → ``uint8 (1024,)``, array → ``uint8 (k, 1024)``).

        Raises:
            IndexError: a row outside ``0..len-1``.
        """
        a = np.asarray(idx, dtype=np.int64)
        if a.size and a.max() >= self._n:
            self.refresh()  # another process may have appended
        if a.size and (a.min() < 0 or a.max() >= self._n):
            raise IndexError(f"signature row out of range 0..{self._n - 1}")
        return np.array(self.rows()[a])

    # ---- writing -----------------------------------------------------------------------------

    def repair(self, rows: int | None = None) -> dict:
        """Make the files whole (writer only, under the folder lock): cut a torn tail, cut the file to
        ``rows`` rows when given (orphan rows a crash left after the last committed one), and bring the
        sketch to the same length.  Returns ``{"torn_bytes": n, "rows_cut": n, "sketch_rows_fixed": n}``."""
        with self._lock:
            self.path.touch(exist_ok=True)
            size = self._size()
            torn = size % NBYTES
            n = size // NBYTES
            cut = 0
            if rows is not None and rows < n:
                cut, n = n - rows, rows
            if torn or cut:
                with open(self.path, "r+b") as f:
                    f.truncate(n * NBYTES)
                    f.flush()
                    if self.durable:
                        os.fsync(f.fileno())
            fixed = 0
            if self.sketch_bytes:
                have = self._sketch_rows()
                if have != n or (self.sketch_path.exists() and self.sketch_path.stat().st_size % self.sketch_bytes):
                    fixed = abs(n - have)
                    self.sketch_path.touch(exist_ok=True)
                    with open(self.sketch_path, "r+b") as f:
                        f.truncate(min(have, n) * self.sketch_bytes)
                        if have < n:
                            rows_map = np.memmap(self.path, dtype=np.uint8, mode="r", shape=(n, NBYTES))
                            f.seek(have * self.sketch_bytes)
                            for s in range(have, n, 65536):
                                f.write(np.ascontiguousarray(rows_map[s:min(n, s + 65536), :self.sketch_bytes]).tobytes())
                            del rows_map
                        f.flush()
            self._rows_map = self._sketch_map = None
            self._mapped_n = -1
            self._n = n
            return {"torn_bytes": torn, "rows_cut": cut, "sketch_rows_fixed": fixed}

    def append(self, sigs: np.ndarray) -> np.ndarray:
        """Append ``uint8 (k, 1024)`` (or one ``(1024,)``) rows; returns their row numbers ``int64 (k,)``.

        The first row number is the file's own row count at this moment (read under the caller's
        writer lock), so it is right even after another process appended; a torn tail is cut first.

        Raises:
            ValueError: wrong dtype/shape.  StoreError: the write failed.
        """
        sigs = np.asarray(sigs)
        if sigs.ndim == 1:
            sigs = sigs[None, :]
        if sigs.dtype != np.uint8 or sigs.ndim != 2 or sigs.shape[1] != NBYTES:
            raise ValueError(f"signatures must be uint8 (k, {NBYTES}), got {sigs.dtype} {sigs.shape}")
        sigs = np.ascontiguousarray(sigs)
        with self._lock:
            try:
                if self.torn or (self.sketch_bytes and self._sketch_rows() != self._size() // NBYTES):
                    self.repair()
                self.path.touch(exist_ok=True)
                with open(self.path, "r+b") as f:
                    start = os.fstat(f.fileno()).st_size // NBYTES
                    f.seek(start * NBYTES)
                    f.write(sigs.tobytes())
                    f.flush()
                    if self.durable:
                        os.fsync(f.fileno())
                if self.sketch_bytes:
                    self.sketch_path.touch(exist_ok=True)
                    with open(self.sketch_path, "r+b") as f:
                        f.seek(start * self.sketch_bytes)
                        f.write(np.ascontiguousarray(sigs[:, :self.sketch_bytes]).tobytes())
                        f.flush()
                        if self.durable:
                            os.fsync(f.fileno())
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot append signatures: {exc}") from exc
            self._n = start + sigs.shape[0]
            self._mapped_n = -1
            return np.arange(start, self._n, dtype=np.int64)

    def invalidate(self, idx) -> int:
        """Zero rows ``idx`` (file and sketch) and list them in ``NAME.invalid``; returns how many.

        Raises:
            IndexError: a row outside ``0..len-1``.
        """
        a = np.unique(np.asarray(idx, dtype=np.int64).ravel())
        if not a.size:
            return 0
        if a.max() >= self._n:
            self.refresh()
        if a.min() < 0 or a.max() >= self._n:
            raise IndexError(f"signature row out of range 0..{self._n - 1}")
        with self._lock:
            zero = bytes(NBYTES)
            with open(self.path, "r+b") as f:
                for r in a:
                    f.seek(int(r) * NBYTES)
                    f.write(zero)
                f.flush()
                if self.durable:
                    os.fsync(f.fileno())
            if self.sketch_bytes:
                zs = bytes(self.sketch_bytes)
                with open(self.sketch_path, "r+b") as f:
                    for r in a:
                        f.seek(int(r) * self.sketch_bytes)
                        f.write(zs)
            with open(self.invalid_path, "ab") as f:
                f.write(a.astype("<i8").tobytes())
                f.flush()
                if self.durable:
                    os.fsync(f.fileno())
        return int(a.size)

    def invalid(self) -> np.ndarray:
        """Invalidated row numbers, sorted and unique: ``int64 (m,)``."""
        if not self.invalid_path.exists():
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.fromfile(self.invalid_path, dtype="<i8").astype(np.int64))

    @property
    def compact_path(self) -> Path:
        """Where :meth:`prepare_compact` writes the compacted file (``NAME.compact``)."""
        return self.path.with_name(self.path.name + ".compact")

    def prepare_compact(self, drop=None) -> tuple[Path, np.ndarray]:
        """Write the file without the invalidated rows (and any rows in ``drop``) to
        :attr:`compact_path`, fsynced; the live file is not touched until :meth:`commit_compact`.

        Returns:
            (the compacted file, ``int64 (old_len,)``: the new row of each old row, ``-1`` for a
            dropped row).  The caller rewrites stored row numbers with it before committing.
        """
        with self._lock:
            dead = self.invalid()
            if drop is not None:
                dead = np.union1d(dead, np.asarray(drop, dtype=np.int64))
            keep = np.ones(self._n, dtype=bool)
            keep[dead[(dead >= 0) & (dead < self._n)]] = False
            mapping = np.full(self._n, -1, dtype=np.int64)
            mapping[keep] = np.arange(int(keep.sum()), dtype=np.int64)
            tmp = self.compact_path
            rows = self.rows()
            with open(tmp, "wb") as f:
                for s in range(0, self._n, 65536):
                    e = min(self._n, s + 65536)
                    f.write(np.ascontiguousarray(rows[s:e][keep[s:e]]).tobytes())
                f.flush()
                os.fsync(f.fileno())
            return tmp, mapping

    def commit_compact(self, tmp: Path) -> None:
        """Swap the compacted file in (``os.replace``, atomic on POSIX), forget the invalid list,
        rebuild the sketch.  The old file's blocks are freed: its bytes are in no file any more."""
        with self._lock:
            self._rows_map = self._sketch_map = None
            self._mapped_n = -1
            os.replace(tmp, self.path)
            self._n = self.path.stat().st_size // NBYTES
            if self.invalid_path.exists():
                self.invalid_path.unlink()
            if self.sketch_bytes:
                self._rebuild_sketch()

    def compact(self, drop=None) -> np.ndarray:
        """Rewrite the file without the invalidated rows (and any rows in ``drop``).

        The new file is written beside the old one, fsynced, then swapped in with
        ``os.replace`` (atomic on POSIX), so a crash leaves either the old or the new file.

        Returns:
            ``int64 (old_len,)``: the new row of each old row, ``-1`` for a dropped row.
            The caller must rewrite stored row numbers with it.
        """
        with self._lock:
            tmp, mapping = self.prepare_compact(drop)
            self.commit_compact(tmp)
            return mapping

    def _rebuild_sketch(self) -> None:
        tmp = self.sketch_path.with_name(self.sketch_path.name + ".tmp")
        n = self.path.stat().st_size // NBYTES
        with open(tmp, "wb") as out:
            if n:
                rows = np.memmap(self.path, dtype=np.uint8, mode="r", shape=(n, NBYTES))
                for s in range(0, n, 65536):
                    out.write(np.ascontiguousarray(rows[s:s + 65536, :self.sketch_bytes]).tobytes())
                del rows
        os.replace(tmp, self.sketch_path)

    def close(self) -> None:
        """Drop the maps (the files stay)."""
        with self._lock:
            self._rows_map = self._sketch_map = None
            self._mapped_n = -1


class ServerSignatureFile(SignatureFile):
    """A signature file whose rows live in the database (``hdc_row``: ``bytea``), the source of truth shared by
    every device; the flat file in the data folder is this device's cache of them, for the mmap'd reads.

    * Row numbers come from the database (``max(rowno) + 1`` of the kind, under the writer lock — the
      server's advisory lock), so two devices never hand out the same row.
    * :meth:`refresh` brings the cache up to the database: rows other devices appended are copied in; after
      a forget zeroed rows or a purge compacted them (the database's ``hdc_epoch`` changed), or when the
      data folder was pointed at another database (``db_id``), the cache is rebuilt from the database.
    * :meth:`append`, :meth:`invalidate` and :meth:`commit_compact` write the database, then the cache.

    Args:
        path: the cache file.  engine: the server database's SQLAlchemy engine.  kind: 0 structured, 1 gist.
    """

    def __init__(self, path: Path, engine, kind: int, sketch_bytes: int = 32, durable: bool = True):
        self.engine = engine
        self.kind = int(kind)
        self.marker_path = Path(path).with_name(Path(path).name + ".source")
        from core.store.lock import FileGate

        self._gate = FileGate(Path(path).with_name(Path(path).name + ".lock"))
        super().__init__(path, sketch_bytes=sketch_bytes, durable=durable)

    # ---- the database's side -------------------------------------------------------------------
    def _state(self) -> tuple[int, str]:
        """(rows in the database, ``"db_id:epoch"``)."""
        with self.engine.connect() as conn:
            n = conn.exec_driver_sql("SELECT coalesce(max(rowno) + 1, 0) FROM hdc_row WHERE kind = ?",
                                     (self.kind,)).scalar()
            meta = dict(conn.exec_driver_sql(
                "SELECT key, value FROM storemeta WHERE key IN ('db_id', 'hdc_epoch')").fetchall())
        return int(n or 0), f"{meta.get('db_id', '')}:{meta.get('hdc_epoch', '0')}"

    def _bump_epoch(self, conn) -> str:
        conn.exec_driver_sql("INSERT INTO storemeta(key, value) VALUES ('hdc_epoch', '1') ON CONFLICT (key) "
                             "DO UPDATE SET value = CAST(CAST(storemeta.value AS BIGINT) + 1 AS TEXT)")
        meta = dict(conn.exec_driver_sql(
            "SELECT key, value FROM storemeta WHERE key IN ('db_id', 'hdc_epoch')").fetchall())
        return f"{meta.get('db_id', '')}:{meta.get('hdc_epoch', '0')}"

    def read(self, rows) -> np.ndarray:
        """Rows for an export: from the database (:meth:`read_db`)."""
        return self.read_db(rows)

    def read_db(self, rows) -> np.ndarray:
        """Rows from the database (the source of truth): ``uint8 (len(rows), 1024)``; a missing row is zeros."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(rows), NBYTES), dtype=np.uint8)
        if not len(rows):
            return out
        pos = {int(r): i for i, r in enumerate(rows)}
        uniq = sorted(pos)
        with self.engine.connect() as conn:
            for s in range(0, len(uniq), 2000):
                part = uniq[s:s + 2000]
                for r, sig in conn.exec_driver_sql(
                        f"SELECT rowno, sig FROM hdc_row WHERE kind = {self.kind} AND rowno IN ({','.join(map(str, part))})"):
                    out[pos[int(r)]] = np.frombuffer(bytes(sig), dtype=np.uint8)
        # repeated rows
        for i, r in enumerate(rows):
            if pos[int(r)] != i:
                out[i] = out[pos[int(r)]]
        return out

    # ---- the cache ---------------------------------------------------------------------------------
    def _marker(self) -> str:
        try:
            return self.marker_path.read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def _set_marker(self, value: str) -> None:
        tmp = self.marker_path.with_name(self.marker_path.name + ".tmp")
        tmp.write_text(value, encoding="utf-8")
        os.replace(tmp, self.marker_path)

    def refresh(self) -> int:
        """Bring the cache up to the database (see the class); returns the row count."""
        if not hasattr(self, "engine"):
            return super().refresh()
        with self._gate.hold(), self._lock:
            n_db, state = self._state()
            n = super().refresh()
            if self._marker() != state or n > n_db:
                self._truncate()
                n = 0
            if n < n_db:
                for s in range(n, n_db, 4096):
                    e = min(n_db, s + 4096)
                    SignatureFile.append(self, self.read_db(np.arange(s, e)))
            self._set_marker(state)
            return super().refresh()

    def rebuild(self) -> int:
        """Throw the cache away and copy every row from the database (``kith doctor --repair``)."""
        with self._gate.hold(), self._lock:
            self._truncate()
            try:
                self.marker_path.unlink()
            except OSError:
                pass
        return self.refresh()

    def _truncate(self) -> None:
        self._rows_map = self._sketch_map = None
        self._mapped_n = -1
        for p in (self.path, self.sketch_path, self.invalid_path):
            try:
                p.unlink()
            except OSError:
                pass
        self._n = 0

    def cache_ok(self) -> bool:
        """Whether the cache holds exactly the database's rows (read-only check, for ``kith doctor``)."""
        n_db, state = self._state()
        return self._marker() == state and self._size() // NBYTES == n_db and not self.torn

    # ---- writes (under the writer lock) --------------------------------------------------------------
    def append(self, sigs: np.ndarray) -> np.ndarray:
        """Append rows to the database, then to the cache; returns their row numbers ``int64 (k,)``."""
        sigs = np.asarray(sigs)
        if sigs.ndim == 1:
            sigs = sigs[None, :]
        if sigs.dtype != np.uint8 or sigs.ndim != 2 or sigs.shape[1] != NBYTES:
            raise ValueError(f"signatures must be uint8 (k, {NBYTES}), got {sigs.dtype} {sigs.shape}")
        with self._gate.hold(), self._lock:
            start = self.refresh()
            rows = [(self.kind, start + i, bytes(sigs[i].tobytes())) for i in range(sigs.shape[0])]
            try:
                with self.engine.begin() as conn:
                    for s in range(0, len(rows), 1000):
                        conn.exec_driver_sql("INSERT INTO hdc_row(kind, rowno, sig) VALUES (?, ?, ?)", rows[s:s + 1000])
            except Exception as exc:
                raise StoreError(f"cannot store signatures in the database: {exc}") from exc
            got = SignatureFile.append(self, sigs)
            if int(got[0]) != start:
                raise StoreError(f"{self.path}: the signature cache is not the database's (row {int(got[0])} vs {start})")
            return got

    def invalidate(self, idx) -> int:
        """Zero rows in the database and the cache; other devices rebuild their caches (the epoch changes)."""
        a = np.unique(np.asarray(idx, dtype=np.int64).ravel())
        if not a.size:
            return 0
        with self._gate.hold(), self._lock:
            self.refresh()
            n = super().invalidate(a)
            with self.engine.begin() as conn:
                zero = bytes(NBYTES)
                for s in range(0, len(a), 1000):
                    conn.exec_driver_sql("UPDATE hdc_row SET sig = ? WHERE kind = ? AND rowno = ?",
                                         [(zero, self.kind, int(r)) for r in a[s:s + 1000]])
                state = self._bump_epoch(conn)
            self._set_marker(state)
            return n

    def commit_compact(self, tmp: Path) -> None:
        """Swap the compacted cache in, then write the database's rows as the cache now holds them."""
        with self._gate.hold(), self._lock:
            super().commit_compact(tmp)
            rows = self.rows()
            with self.engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM hdc_row WHERE kind = ?", (self.kind,))
                for s in range(0, len(rows), 1000):
                    conn.exec_driver_sql("INSERT INTO hdc_row(kind, rowno, sig) VALUES (?, ?, ?)",
                                         [(self.kind, s + i, bytes(np.ascontiguousarray(r).tobytes()))
                                          for i, r in enumerate(rows[s:s + 1000])])
                state = self._bump_epoch(conn)
            self._set_marker(state)
