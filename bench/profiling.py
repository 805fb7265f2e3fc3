"""cProfile breakdowns: own time by category and top functions, and (`--profile-worker`) a second
worker under cProfile on the same topic."""

from __future__ import annotations

import atexit
import cProfile
import pstats
import sys
from pathlib import Path

from bench.common import CREATED, FIGURES, REPO_ROOT, Child, Follow, end_offsets, say, section

CATEGORIES = [
    (
        "our code (streams/, schemas/)",
        lambda f, n: f.startswith((str(REPO_ROOT / "streams"), str(REPO_ROOT / "schemas"))),
    ),
    ("pydantic validation", lambda f, n: "pydantic" in f or "pydantic" in n),
    ("regex (extract)", lambda f, n: "re.Pattern" in n or "/re/" in f or "_sre" in n),
    ("dataclasses.asdict + copy.deepcopy (old dict codec)", lambda f, n: "dataclasses.py" in f or "copy.py" in f),
    ("faust", lambda f, n: "/faust/" in f),
    ("mode", lambda f, n: "/mode/" in f),
    ("aiokafka", lambda f, n: "/aiokafka/" in f or "aiokafka" in n),
    ("asyncio event loop", lambda f, n: "/asyncio/" in f or "_asyncio" in n or "epoll" in n or "selectors.py" in f),
    ("socket I/O", lambda f, n: "socket" in n),
    ("json (stdlib json, Faust codecs)", lambda f, n: "orjson" in n or "/json/" in f or "json" in n),
]


def profile_breakdown(stats: pstats.Stats, per: int, label: str, top: int = 14) -> dict[str, float]:
    """Own time per category and the top functions, in µs per event (inflated by cProfile)."""
    totals: dict[str, float] = {}
    rows, grand = [], 0.0
    for (filename, line, name), (_cc, nc, tt, _ct, _callers) in stats.stats.items():
        grand += tt
        category = next((c for c, match in CATEGORIES if match(filename, name)), "other (stdlib, builtins)")
        totals[category] = totals.get(category, 0.0) + tt
        where = name if filename == "~" else f"{Path(filename).name}:{line} {name}"
        rows.append((tt, nc, where))
    say(f"    {label}: own time by category ({grand:.2f} s under cProfile = {grand / per * 1e6:.1f} µs/event)")
    for category, tt in sorted(totals.items(), key=lambda kv: -kv[1]):
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:8.2f} µs/event  {category}")
    say("    top functions by own time:")
    for tt, nc, where in sorted(rows, reverse=True)[:top]:
        say(f"      {tt / grand:6.1%}  {tt / per * 1e6:8.2f} µs/event  {nc / per:6.2f} calls/event  {where[:100]}")
    return {c: round(tt / grand, 4) for c, tt in totals.items()}


def profiled_worker_phase(settings, home: Path, count: int, extra_env: dict[str, str], admin, watermarks) -> None:
    """A second worker (own app id, so it reads the turns topic from the start) under cProfile."""
    from dreamstream.topic_admin import ensure_topics

    section(f"7. a second worker under cProfile (main thread), same topic, first ~{count:,} records")
    prof = settings.model_copy(update={"app_id": f"{settings.app_id}-prof"})
    ensure_topics(prof)
    CREATED.append(prof)
    out = home / "worker.prof"
    child = Child(prof, home, "profiled-worker", extra_env, argv=["--_profiled-worker", str(out)])
    try:
        Follow(child, admin, watermarks, prof.app_id, prof.topics.turns, None, prof.partitions, count, quiet=True).run(
            timeout_s=120 + count / 100
        )
    finally:
        child.stop()
    processed = end_offsets(watermarks, prof.topics.signals_changelog, prof.partitions)
    if not out.exists():
        say("    (no profile written)")
        return
    FIGURES["worker_profile_shares"] = profile_breakdown(
        pstats.Stats(str(out)), processed, f"cProfile of the worker ({processed:,} events incl. startup)"
    )


def profiled_worker_child(out: str) -> None:
    """Child mode (`--_profiled-worker FILE`): the `dreamstream worker streams` command under cProfile,
    dumped at exit."""
    prof = cProfile.Profile()

    def dump() -> None:
        prof.disable()
        prof.dump_stats(out)

    atexit.register(dump)
    sys.argv = ["dreamstream", "worker", "streams"]
    from dreamstream.cli import main

    prof.enable()
    main()
