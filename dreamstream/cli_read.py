"""Read commands: `memories list|show|history|diff`, `generations`, `jobs`, `audit tail`.

Every one takes `--json`; the store commands also take `--api URL` for when a running worker
holds the embedded store (see dreamstream/cli_common.py).
"""

from __future__ import annotations

import json

import click

from dreaming.store.filters import MemoryFilter
from dreaming.store.history import (
    GenerationDiff,
    RecordVersion,
    TrailEntry,
    change_trail,
    diff_generations,
    generations_json,
    record_history,
)
from dreamstream.cli_common import (
    Command,
    Group,
    api_option,
    emit_json,
    json_option,
    load_settings,
    quiet_kafka,
    scope_reader,
    table,
    when,
)
from dreamstream.control import AuditReader
from schemas import AnyAuditEvent, JobLifecycleEvent, MemoryChangeEvent, MemoryRecord, parse_scope


# --- memories
@click.group(cls=Group)
def memories() -> None:
    """A scope's curated memories: list them, follow one, its change trail, diff generations."""


@memories.command("list")
@click.argument("scope")
@click.option(
    "--generation", type=click.IntRange(min=0), default=None, help="a kept generation [default: the active one]"
)
@click.option("--all", "include_inactive", is_flag=True, help="also superseded, merged and archived records")
@click.option(
    "--about",
    "where",
    default=None,
    callback=lambda _ctx, _param, about: _about_filter(about),
    help="only memories that name this person or thing (e.g. Ava)",
)
@json_option
@api_option
def memories_list(
    scope: str,
    generation: int | None,
    include_inactive: bool,
    where: MemoryFilter,
    as_json: bool,
    api_url: str | None,
) -> None:
    """The memories readers see in SCOPE (tenant/agent/subject)."""
    with scope_reader(load_settings(), api_url) as reader:
        records = reader.records(scope, generation, include_inactive, where)
        number = reader.state(scope).active_generation if generation is None else generation
    if as_json:
        emit_json({"scope": scope, "generation": number, "memories": [m.model_dump(mode="json") for m in records]})
        return
    click.echo(f"{scope}: generation {number}, {len(records)} {'records' if include_inactive else 'active memories'}")
    if records:
        rows = [(m.memory_id, _status(m), m.text, ", ".join(m.evidence_message_ids), m.updated_at) for m in records]
        click.echo(table(["id", "status", "text", "evidence", "updated"], rows))


def _about_filter(about: str | None) -> MemoryFilter:
    """Read at parse time, so a bad value is a usage error on one line."""
    try:
        return MemoryFilter(about=about)
    except ValueError as err:
        raise click.BadParameter(str(err)) from err


@memories.command("show")
@click.argument("scope")
@click.argument("memory_id")
@json_option
@api_option
def memories_show(scope: str, memory_id: str, as_json: bool, api_url: str | None) -> None:
    """One memory of SCOPE and what it was in every kept generation."""
    with scope_reader(load_settings(), api_url) as reader:
        versions = record_history(reader, scope, memory_id)
        active = reader.state(scope).active_generation
    current = next((v.record for v in versions if v.generation.generation == active), None)
    if as_json:
        emit_json(
            {
                "scope": scope,
                "memory_id": memory_id,
                "active_generation": active,
                "current": current.model_dump(mode="json") if current else None,
                "history": [v.to_json() for v in versions],
            }
        )
        return
    if current is None:
        click.echo(f"{memory_id} is not in the active generation {active} of {scope}")
    else:
        click.echo(_describe(current))
    click.echo("\nacross kept generations:")
    click.echo(table(["gen", "generation status", "memory status", "text"], [_version_row(v) for v in versions]))


@memories.command("history")
@click.argument("scope")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="only the last N entries")
@json_option
@api_option
def memories_history(scope: str, limit: int | None, as_json: bool, api_url: str | None) -> None:
    """SCOPE's memory-change audit trail: every pass that changed memory, and operator decisions."""
    with scope_reader(load_settings(), api_url) as reader:
        trail = change_trail(reader.diary(scope))
    if limit:
        trail = trail[-limit:]
    if as_json:
        emit_json({"scope": scope, "entries": [t.to_json() for t in trail]})
        return
    if not trail:
        click.echo(f"{scope}: no memory changes yet")
    for item in trail:
        click.echo(_trail_heading(item))
        for change in item.changes:
            click.echo(f"    {_change_line(change)}")


@memories.command("diff")
@click.argument("scope")
@click.argument("from_generation", metavar="[FROM", type=click.IntRange(min=0), required=False)
@click.argument("to_generation", metavar="[TO]]", type=click.IntRange(min=0), required=False)
@json_option
@api_option
def memories_diff(
    scope: str, from_generation: int | None, to_generation: int | None, as_json: bool, api_url: str | None
) -> None:
    """What changed in SCOPE between two generations [default: the previous one and the active one]."""
    with scope_reader(load_settings(), api_url) as reader:
        diff = diff_generations(reader, scope, from_generation, to_generation)
    if as_json:
        emit_json(diff.to_json())
        return
    click.echo(_render_diff(diff))


# --- generations, jobs
@click.command(cls=Command)
@click.argument("scope")
@json_option
@api_option
def generations(scope: str, as_json: bool, api_url: str | None) -> None:
    """SCOPE's kept generations: which one readers see, which are quarantined, rejected or kept for rollback."""
    with scope_reader(load_settings(), api_url) as reader:
        state = reader.state(scope)
    if as_json:
        emit_json(generations_json(state))
        return
    click.echo(f"{scope}: generation {state.active_generation} is active")
    rows = [
        (
            g.generation,
            g.status,
            g.job_id,
            g.created_at,
            g.memories_active,
            f"{g.decisions[-1].action} by {g.decisions[-1].by}" if g.decisions else None,
            g.reason,
        )
        for g in sorted(state.generations, key=lambda g: g.generation)
    ]
    if rows:
        click.echo(table(["gen", "status", "job", "created", "active", "decision", "reason"], rows))


@click.command(cls=Command)
@click.argument("scope")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="only the last N passes")
@json_option
@api_option
def jobs(scope: str, limit: int | None, as_json: bool, api_url: str | None) -> None:
    """SCOPE's diary: one line per pass (and operator decision) with trigger, outcome, motives and model use."""
    with scope_reader(load_settings(), api_url) as reader:
        entries = reader.diary(scope)
    if limit:
        entries = entries[-limit:]
    if as_json:
        emit_json(
            {
                "scope": scope,
                "jobs": [
                    {
                        **e.model_dump(mode="json", exclude={"events"}),
                        "memory_changes": sum(isinstance(ev, MemoryChangeEvent) for ev in e.events),
                    }
                    for e in entries
                ],
            }
        )
        return
    if not entries:
        click.echo(f"{scope}: no passes yet")
        return
    rows = [
        (
            e.written_at,
            e.job_id,
            e.trigger,
            e.status,
            e.generation,
            ", ".join(sorted({m.kind for m in e.motives})) or None,
            f"{e.model_calls} calls, {e.prompt_tokens + e.completion_tokens} tokens, ${e.cost_usd:.4f}"
            if e.model_calls
            else None,
            e.reason,
        )
        for e in entries
    ]
    click.echo(table(["written", "job", "trigger", "status", "gen", "motives", "model", "reason"], rows))


# --- audit
@click.group(cls=Group)
def audit() -> None:
    """The audit topic: job lifecycle and memory-change events, as downstream services see them."""


@audit.command("tail")
@click.option("--scope", default=None, help="only this scope's events")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True, help="how many past events to show")
@click.option("--follow", "-f", is_flag=True, help="keep printing new events until interrupted")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object per line (JSON Lines)")
def audit_tail(scope: str | None, limit: int, follow: bool, as_json: bool) -> None:
    """The last events of the audit topic; with --follow, then every new one as it arrives."""
    settings = load_settings()
    if scope:
        parse_scope(scope)
    # A scope shares its partition with others: look further back to find its last `limit`.
    window = max(limit * 50, 5_000) if scope and limit else limit
    with AuditReader(
        settings,
        tail=window,
        scope=scope,
        on_unreadable=lambda line: click.echo(line, err=True),
        client_config=quiet_kafka(),
    ) as reader:
        backlog = reader.backlog()[-limit:] if limit else []
        for event in backlog:
            _print_event(event, as_json)
        if follow:
            click.echo(f"following {reader.topic} (Ctrl-C to stop)", err=True)
            try:
                while True:
                    for event in reader.read(1.0):
                        _print_event(event, as_json)
            except KeyboardInterrupt:
                return


# --- rendering
def _status(m: MemoryRecord) -> str:
    return m.status + (" [protected]" if m.protected else "")


def _describe(m: MemoryRecord) -> str:
    lines = [
        f"{m.memory_id}  ({_status(m)}, from {m.origin}, confidence {m.confidence:.2f})",
        f"  {m.text}",
        f"  evidence: {', '.join(m.evidence_message_ids) or '-'}",
        f"  created {when(m.created_at)}, updated {when(m.updated_at)}",
    ]
    if m.superseded_by:
        lines.append(f"  superseded by {m.superseded_by}")
    if m.merged_into:
        lines.append(f"  merged into {m.merged_into}")
    if m.merged_from:
        lines.append(f"  merged from {', '.join(m.merged_from)}")
    if m.status_reason:
        lines.append(f"  why: {m.status_reason}")
    return "\n".join(lines)


def _version_row(v: RecordVersion) -> tuple[int, str, str, str | None]:
    r = v.record
    return (v.generation.generation, v.generation.status, _status(r) if r else "(absent)", r.text if r else None)


def _trail_heading(item: TrailEntry) -> str:
    e = item.entry
    generation = f", generation {e.generation}" if e.generation is not None else ""
    return f"{when(e.written_at)}  {e.job_id}  ({e.trigger}, {e.status}{generation}): {e.reason}"


def _change_line(c: MemoryChangeEvent) -> str:
    record = c.after or c.before  # a change event carries at least one of the two
    text = repr(record.text) if record is not None else "-"
    evidence = ", ".join(c.evidence_message_ids) or "-"
    return f"{c.change:<10} {c.memory_id}  {text}  — {c.reason} (evidence: {evidence})"


def _render_diff(diff: GenerationDiff) -> str:
    head = (
        f"{diff.scope}: generation {diff.from_generation} → {diff.to_generation}: "
        f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed"
    )
    lines = [head]
    lines += [f"+ {m.memory_id}  [{m.status}]  {m.text}" for m in diff.added]
    lines += [f"- {m.memory_id}  [{m.status}]  {m.text}" for m in diff.removed]
    for c in diff.changed:
        lines.append(f"~ {c.memory_id}  ({', '.join(c.fields)})")
        if c.before.status != c.after.status:
            lines.append(
                f"    status: {c.before.status} → {c.after.status}"
                + (f" ({c.after.status_reason})" if c.after.status_reason else "")
            )
        if c.before.text != c.after.text:
            lines.append(f"    was: {c.before.text}\n    now: {c.after.text}")
    return "\n".join(lines)


def _print_event(event: AnyAuditEvent, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(event.model_dump(mode="json")))
        return
    stamp = when(event.ts)
    if isinstance(event, JobLifecycleEvent):
        generation = f" generation {event.generation}" if event.generation is not None else ""
        click.echo(
            f"{stamp}  {event.scope}  job {event.job_id} {event.status} ({event.trigger}{generation})"
            + (f": {event.reason}" if event.reason else "")
        )
    elif isinstance(event, MemoryChangeEvent):
        click.echo(f"{stamp}  {event.scope}  {_change_line(event)}")
    else:
        click.echo(f"{stamp}  {event.scope}  {event.type} {event.model_dump_json(exclude={'ts', 'scope', 'type'})}")
