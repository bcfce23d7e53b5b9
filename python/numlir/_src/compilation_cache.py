"""The persistent compilation cache: executables kept on disk across processes.

A second process that compiles the same hlo module for the same backend,
options, machine and compiler build loads the executable from here instead of
running the pipeline (docs/compilation-cache.md). Entries are files named by
the sha256 of everything that determines the executable (``key``):

    offset size
         0    8  magic b"NLCACHE\\x1a"
         8    4  format version (little-endian u32)
        12    4  reserved, 0
        16    8  payload size in bytes (little-endian u64)
        24   32  sha256 of the payload
        56    -  payload: the bytes the backend's last stage produced

Writes go to a temporary file in the same directory and are renamed into
place, so a reader sees a whole entry or none. A reader checks the size and
the checksum before anything reaches the runtime: a damaged entry is deleted
and counts as a miss. The cache never makes compilation fail: an unusable
directory is reported once (a warning) and the cache is skipped.

The directory is bounded (``compilation_cache_max_size``): after a write that
takes it over the bound, the least recently used entries (oldest mtime; a hit
touches its entry) are deleted until it is at 90% of it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import tempfile
import threading
import time
import warnings
from typing import Iterable

from numlir._src import config

MAGIC = b"NLCACHE\x1a"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sII Q 32s")
HEADER_SIZE = _HEADER.size
SUFFIX = ".nlcc"
#: After eviction the directory holds at most this fraction of the bound, so that
#: the writes right after an eviction do not each scan the directory again.
EVICT_TO = 0.9
#: Temporary files older than this are left over from a writer that died.
STALE_TEMPORARY_S = 3600.0

_logger = logging.getLogger("numlir")
#: hits and misses of lookups; damaged: entries that failed their checksum; refused:
#: intact entries the device would not load; both count as misses.
stats = {"hits": 0, "misses": 0, "writes": 0, "damaged": 0, "refused": 0, "evicted": 0}


def default_directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "numlir", "compilation")


def directory() -> str:
    return config.flags.compilation_cache_dir or default_directory()


_version: str | None = None


def numlir_version() -> str:
    global _version
    if _version is None:
        from importlib import metadata

        try:
            _version = metadata.version("numlir")
        except metadata.PackageNotFoundError:
            _version = "unknown"
    return _version


_build: str | None = None


def compiler_build() -> str:
    """Which build of the compiler this is: the size and modification time of its shared
    libraries. Every development build shares one version number, and an entry compiled
    before a rebuild (a codegen fix, say) must not be served after it."""
    global _build
    if _build is None:
        import importlib.util

        spec = importlib.util.find_spec("numlir._compiler")
        where = os.path.dirname(spec.origin) if spec and spec.origin else ""
        parts = []
        for name in sorted(os.listdir(where)) if where else []:
            if name.endswith(".so") and ("Compiler" in name or "_compiler" in name):
                info = os.stat(os.path.join(where, name))
                parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
        _build = ";".join(parts) or "unknown"
    return _build


def key(parts: Iterable[str]) -> str:
    """The entry name for these key parts (each part is length-prefixed, so no two
    different lists of parts give the same bytes)."""
    digest = hashlib.sha256()
    digest.update(f"numlir-compilation-cache-{FORMAT_VERSION}".encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def encode(payload: bytes) -> bytes:
    """An entry: the header, then ``payload``."""
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload), hashlib.sha256(payload).digest())
    return header + payload


def decode(entry: bytes) -> bytes | None:
    """The payload of an intact entry; None if it is damaged in any way."""
    if len(entry) < HEADER_SIZE:
        return None
    magic, version, reserved, size, checksum = _HEADER.unpack_from(entry)
    payload = entry[HEADER_SIZE:]
    if magic != MAGIC or version != FORMAT_VERSION or reserved != 0 or size != len(payload):
        return None
    if hashlib.sha256(payload).digest() != checksum:
        return None
    return payload


class _Directory:
    """One cache directory: reads, atomic writes and eviction."""

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        self._bytes: int | None = None  # estimate of the entries' total size; None: unscanned
        self._evicting: threading.Thread | None = None
        self._warned = False

    def _entry_path(self, name: str) -> str:
        return os.path.join(self.path, name + SUFFIX)

    def _warn(self, what: str, error: OSError) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"numlir's compilation cache in {self.path!r} could not {what} ({error}); "
                          "compiling without it. Set NUMLIR_CACHE_DIR to a writable directory, "
                          "or NUMLIR_ENABLE_COMPILATION_CACHE=0", RuntimeWarning, stacklevel=2)

    def get(self, name: str) -> bytes | None:
        path = self._entry_path(name)
        try:
            with open(path, "rb") as f:
                entry = f.read()
        except FileNotFoundError:
            return None
        except OSError as error:
            self._warn("read an entry", error)
            return None
        payload = decode(entry)
        if payload is None:
            stats["damaged"] += 1
            _logger.warning("numlir: deleting damaged compilation cache entry %s", path)
            self.remove(name)
            return None
        try:
            os.utime(path)  # most recently used
        except OSError:
            pass
        return payload

    def remove(self, name: str) -> None:
        try:
            os.unlink(self._entry_path(name))
        except OSError:
            pass

    def put(self, name: str, payload: bytes, max_bytes: int) -> None:
        entry = encode(payload)
        if 0 <= max_bytes < len(entry):
            return
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)  # entries are native code
            fd, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=self.path)
        except OSError as error:
            self._warn("create an entry", error)
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(entry)
            os.replace(temporary, self._entry_path(name))
        except OSError as error:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            self._warn("write an entry", error)
            return
        stats["writes"] += 1
        if max_bytes >= 0:
            with self._lock:
                if self._bytes is not None:
                    self._bytes += len(entry)
                over = self._bytes is None or self._bytes > max_bytes
                # (is_alive: a process forked during a scan has no such thread.)
                if over and (self._evicting is None or not self._evicting.is_alive()):
                    # A process's first write scans the whole directory (116,064 entries
                    # took 0.54 s, all of it in the first compile of the process), and an
                    # eviction deletes many files: on a thread of its own, so that the
                    # compile that wrote the entry returns at once.
                    self._evicting = threading.Thread(
                        target=self._evict_in_background, args=(max_bytes,),
                        name="numlir-cache-eviction", daemon=True)
                    self._evicting.start()

    def _evict_in_background(self, max_bytes: int) -> None:
        try:
            self._evict(max_bytes)
        finally:
            with self._lock:
                self._evicting = None

    def settle(self) -> None:
        """Waits for a running scan or eviction to finish."""
        thread = self._evicting
        if thread is not None:
            thread.join()

    def _scan(self) -> list[tuple[float, int, str]]:
        """(mtime, size, path) of every entry; deletes stale temporary files."""
        found = []
        now = time.time()
        try:
            listing = os.scandir(self.path)
        except OSError:
            return found
        with listing:
            for item in listing:
                try:
                    info = item.stat()
                except OSError:
                    continue  # evicted by another process meanwhile
                if item.name.startswith(".tmp-"):
                    if now - info.st_mtime > STALE_TEMPORARY_S:
                        try:
                            os.unlink(item.path)
                        except OSError:
                            pass
                elif item.name.endswith(SUFFIX):
                    found.append((info.st_mtime, info.st_size, item.path))
        return found

    def _evict(self, max_bytes: int) -> None:
        entries = self._scan()
        total = sum(size for _, size, _ in entries)
        if total > max_bytes:
            target = int(max_bytes * EVICT_TO)
            for _, size, path in sorted(entries):
                if total <= target:
                    break
                try:
                    os.unlink(path)
                except OSError:
                    continue
                total -= size
                stats["evicted"] += 1
        with self._lock:
            # Entries written during the scan may be missing from it: an estimate.
            self._bytes = total


_directories: dict[str, _Directory] = {}


def _current() -> _Directory:
    path = os.path.abspath(directory())
    found = _directories.get(path)
    if found is None:
        found = _directories[path] = _Directory(path)
    return found


def settle() -> None:
    """Waits for the cache directories' scans and evictions in progress (tests)."""
    for found in list(_directories.values()):
        found.settle()


def enabled() -> bool:
    return config.flags.enable_compilation_cache and config.flags.compilation_cache_max_size != 0


def get(name: str) -> bytes | None:
    payload = _current().get(name)
    stats["hits" if payload is not None else "misses"] += 1
    return payload


def put(name: str, payload: bytes, compile_seconds: float) -> None:
    """Stores ``payload`` if it took long enough to make and is large enough to keep."""
    if compile_seconds < config.flags.persistent_cache_min_compile_time_secs:
        return
    if len(payload) < config.flags.persistent_cache_min_entry_size_bytes:
        return
    _current().put(name, payload, config.flags.compilation_cache_max_size)


def refused(name: str) -> None:
    """The device would not load the entry ``get`` returned: deletes it, and the lookup
    counts as a miss."""
    stats["refused"] += 1
    stats["hits"] -= 1
    stats["misses"] += 1
    _current().remove(name)
