"""A process pool for per-file work that survives its workers: a file that crashes libclang or runs past the
time limit is reported for that file, its worker is replaced, and every other file is still processed."""

from __future__ import annotations

import ctypes
import gc
import multiprocessing as mp
import os
import resource
import signal
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterable, Iterator


@dataclass(frozen=True)
class Failure:
    """What the pool reports for an item whose worker died or timed out."""

    item: Any
    reason: str
    internal: bool = False      # porter raised (a bug), as opposed to a crash in libclang or the time limit


def _worker(conn: Connection, fn: Callable[[Any], Any], parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers, they print nothing. A worker must
    # not outlive the parent (a killed parent would leave it holding the caller's stdout/stderr pipes open).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        return
    # A memory bomb (`#include "/dev/zero"` grows libclang by ~350 MB/s until the time limit) must fail this file,
    # not the machine: cap each worker's address space (analyzing the samples peaks near 250 MB).
    limit_mb = int(os.environ.get("PORTER_WORKER_MEMORY_MB", "4096") or 0)
    if limit_mb > 0:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, resource.getrlimit(resource.RLIMIT_AS)[1]))
        except (ValueError, OSError):
            pass
    # Extraction allocates many small, acyclic objects (nodes, tuples, cursors): with the default gen-0 threshold
    # (700) the cycle collector runs thousands of times per file and finds nothing (measured ~8% of extraction).
    gc.freeze()
    gc.set_threshold(100_000, 20, 20)
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        if item is None:
            return
        try:
            result = fn(item)
        except Exception as exc:  # a porter bug on one input: report it for that file, no traceback, keep going
            where = traceback.extract_tb(exc.__traceback__)[-1]
            result = Failure(item, f"internal error: {type(exc).__name__}: {str(exc)[:200]} "
                                   f"(at {os.path.basename(where.filename)}:{where.lineno}; please report it)",
                             internal=True)
        conn.send(result)


class _Slot:
    def __init__(self, ctx: Any, fn: Callable[[Any], Any]) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, fn, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.item: Any = None
        self.started = 0.0

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()


def imap(fn: Callable[[Any], Any], items: Iterable[Any], jobs: int, timeout: float) -> Iterator[Any]:
    """Yield fn(item) for every item (in completion order) or a Failure; fn must be a module-level function."""
    ctx = mp.get_context("fork")
    pending = list(items)
    pending.reverse()
    slots = [_Slot(ctx, fn) for _ in range(max(1, min(jobs, len(pending))))]
    busy: dict[Connection, _Slot] = {}
    try:
        while pending or busy:
            for slot in slots:
                if slot.item is None and pending:
                    slot.item, slot.started = pending.pop(), time.monotonic()
                    slot.conn.send(slot.item)
                    busy[slot.conn] = slot
            now = time.monotonic()
            deadline = min(s.started + timeout for s in busy.values())
            ready = wait(list(busy), timeout=max(0.0, deadline - now))
            for conn in ready:
                slot = busy.pop(conn)  # type: ignore[arg-type]
                try:
                    result = conn.recv()  # type: ignore[union-attr]
                except (EOFError, OSError):
                    code = slot.proc.exitcode
                    slot.proc.join(timeout=5)
                    code = slot.proc.exitcode if code is None else code
                    how = f"killed by {signal.Signals(-code).name}" if code and code < 0 and -code in \
                        signal.valid_signals() else f"exit code {code}"
                    yield Failure(slot.item, f"the analyzer process crashed ({how})")
                    _replace(slots, slot, ctx, fn)
                    continue
                slot.item = None
                yield result
            now = time.monotonic()
            for conn, slot in list(busy.items()):
                if now - slot.started >= timeout:
                    busy.pop(conn)
                    yield Failure(slot.item, f"timed out after {timeout:g} s (per-file limit, see --timeout)")
                    _replace(slots, slot, ctx, fn)
    finally:
        for slot in slots:
            if slot.item is None:  # idle: let it exit; a busy one (interrupted run) is killed at once
                try:
                    slot.conn.send(None)
                except (OSError, ValueError):
                    pass
                slot.proc.join(timeout=1)
            slot.stop()


def _replace(slots: list[_Slot], slot: _Slot, ctx: Any, fn: Callable[[Any], Any]) -> None:
    slot.stop()
    slots[slots.index(slot)] = _Slot(ctx, fn)
