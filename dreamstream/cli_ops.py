"""Operator commands: `replay`, `trigger`, `rollback`, `quarantine list|approve|reject`, `settings show`.

`replay` and `trigger` only talk to Kafka, so they work while the workers run. `rollback`,
`approve` and `reject` go through the worker's HTTP API when one is given (`--api` or
DREAMSTREAM_API_URL): the decision then happens in the worker, which counts it on its metrics and
publishes its audit event. Without an API they open the store themselves (with embedded Qdrant,
stop the consolidation worker first) and publish the audit event from here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from consumers.audit_publisher import AuditPublisher
from dreaming.store import quarantine as decisions
from dreaming.store.history import generations_json
from dreamstream.cli_common import (
    CliError,
    Command,
    Group,
    api_client,
    api_option,
    emit_json,
    json_option,
    load_settings,
    operator_name,
    progress,
    require_topics,
    scope_reader,
    table,
    writable_stores,
)
from dreamstream.control import AuditReader, ControlError, send_control
from dreamstream.replay import invalid_lines, produce, read_events
from schemas import JobLifecycleEvent, ScopeForgottenEvent, parse_scope

if TYPE_CHECKING:
    from dreaming.store.pointer import ScopeState
    from dreamstream.cli_common import Stores
    from dreamstream.client import Client, Generations

_BY = click.option(
    "--by", default=operator_name, show_default="your user name", help="who decides (recorded with the decision)"
)


@click.command(cls=Command)
@click.argument("event_files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--skip-invalid", is_flag=True, help="send the valid lines and skip the bad ones (listed on stderr)")
@click.option("--json", "as_json", is_flag=True, help="print {events, topics, skipped} as JSON")
def replay(event_files: tuple[Path, ...], skip_invalid: bool, as_json: bool) -> None:
    """Produce the events of EVENT_FILES (JSONL: turns, memory-adds, control events) onto the
    input topics, in timestamp order, as agent runtimes would. Every line is checked first: a bad
    one stops the replay before anything is sent (its file and line are named), unless
    --skip-invalid."""
    settings = load_settings()
    topics = settings.topics
    events = read_events(event_files, topics)
    read = {e.source.rsplit(":", 1)[0] for e in events}
    empty = [str(path) for path in event_files if str(path) not in read]
    if empty:
        raise CliError(f"no events in {', '.join(empty)}")
    bad = invalid_lines(events, topics, settings.max_event_bytes)
    if bad and not skip_invalid:
        shown = "; ".join(f"{where}: {why}" for where, why in bad[:5])
        more = f" (+{len(bad) - 5} more)" if len(bad) > 5 else ""
        raise CliError(f"{len(bad)} invalid line(s), nothing sent: {shown}{more} (--skip-invalid sends the rest)")
    for where, why in bad:
        click.echo(f"skipping {where}: {why}", err=True)
    skipped = {where for where, _ in bad}
    events = [e for e in events if e.source not in skipped]
    require_topics(settings, sorted({e.topic for e in events}))
    with progress(len(events), "replaying") as advance:
        counts = produce(settings, events, on_progress=advance)
    if as_json:
        emit_json({"events": len(events), "topics": counts, "skipped": [{"line": w, "reason": r} for w, r in bad]})
        return
    summary = ", ".join(f"{n} to {topic}" for topic, n in sorted(counts.items())) or "nothing"
    click.echo(f"replayed {len(events)} events: {summary}" + (f"; skipped {len(bad)} invalid" if bad else ""))


@click.command(cls=Command)
@click.argument("scopes", nargs=-1, required=True)
@click.option("--reason", default="manual", show_default=True, help="why (carried by the control event)")
@click.option("--wait", is_flag=True, help="wait until each pass has finished and show its outcome")
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=1),
    default=300.0,
    show_default=True,
    help="seconds to wait with --wait",
)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def trigger(scopes: tuple[str, ...], reason: str, wait: bool, timeout_s: float, as_json: bool) -> None:
    """Ask SCOPES to dream now (a manual trigger control event each). Exits 1 when a waited-for pass failed."""
    for scope in scopes:
        parse_scope(scope)
    settings = load_settings()
    topics = settings.topics
    require_topics(settings, [topics.control, topics.audit] if wait else [topics.control])
    # Start reading the audit topic before anything is sent, so no outcome can slip past.
    reader = AuditReader(settings, from_now=True) if wait else None
    try:
        requests = send_control(settings, dict.fromkeys(scopes), "trigger", reason)
        if reader is None:
            if as_json:
                emit_json({"requests": [{"request_id": r, "scope": s} for r, s in requests.items()]})
            else:
                for request_id, scope in requests.items():
                    click.echo(f"{scope}: requested ({request_id})")
            return
        if not as_json:
            click.echo(f"waiting for {len(requests)} pass(es)…", err=True)
        finished = reader.wait_for(requests, timeout_s)
    finally:
        if reader is not None:
            reader.close()
    outcomes = [
        {"request_id": request_id, "scope": scope, **_outcome(event)}
        for request_id, scope in requests.items()
        for event in finished
        if request_id in event.request_ids
    ]
    if as_json:
        emit_json({"requests": outcomes})
    else:
        click.echo(
            table(
                ["scope", "status", "generation", "job", "reason"],
                [(o["scope"], o["status"], o["generation"], o["job_id"], o["reason"]) for o in outcomes],
            )
        )
    failed = [o for o in outcomes if o["status"] == "failed"]
    if failed:
        raise CliError(f"{len(failed)} pass(es) failed: " + "; ".join(f"{o['scope']}: {o['reason']}" for o in failed))


def _outcome(event: JobLifecycleEvent) -> dict[str, Any]:
    return {
        "status": event.status,
        "job_id": event.job_id,
        "generation": event.generation,
        "reason": event.reason,
        "memories_before": event.memories_before,
        "memories_after": event.memories_after,
    }


@click.command(cls=Command)
@click.argument("scope")
@click.argument("generation", type=click.IntRange(min=1), required=False)
@click.option("--reason", default="", help="why (recorded in the pointer and the diary)")
@_BY
@click.option("--json", "as_json", is_flag=True, help="print the scope's generations as JSON")
@api_option
def rollback(scope: str, generation: int | None, reason: str, by: str, as_json: bool, api_url: str | None) -> None:
    """Make an earlier kept generation of SCOPE active again [default: the one before the active one]."""
    reason = reason or "rollback"
    before: list[int | None] = []  # the active generation before, known when the store is local

    def in_store(stores: Stores, publish: AuditPublisher) -> ScopeState:
        before.append(stores.memories.state(scope).active_generation)
        return decisions.rollback(stores.memories, stores.diary, scope, generation, by, reason, publish=publish)

    state = _decide(
        scope,
        api_url,
        lambda client: client.rollback(scope, by=by, reason=reason, generation=generation),
        in_store,
    )
    if as_json:
        emit_json(state)
    else:
        was = f" (was {before[0]})" if before and before[0] is not None else ""
        click.echo(f"{scope}: generation {state['active_generation']} is active again{was}")


# --- quarantine
@click.group(cls=Group)
def quarantine() -> None:
    """Candidate generations the gate held back: list them, approve or reject them."""


@quarantine.command("list")
@click.argument("scope", required=False)
@json_option
@api_option
def quarantine_list(scope: str | None, as_json: bool, api_url: str | None) -> None:
    """Quarantined generations of SCOPE [default: of every scope]."""
    with scope_reader(load_settings(), api_url) as reader:
        scopes = [scope] if scope else reader.scopes()
        held = [(s, g) for s in scopes for g in decisions.quarantined(reader.state(s))]
    if as_json:
        emit_json({"quarantined": [{"scope": s, **g.model_dump(mode="json")} for s, g in held]})
        return
    if not held:
        click.echo("no quarantined generations")
        return
    click.echo(
        table(
            ["scope", "gen", "job", "created", "active", "reason"],
            [(s, g.generation, g.job_id, g.created_at, g.memories_active, g.reason) for s, g in held],
        )
    )


@quarantine.command("approve")
@click.argument("scope")
@click.argument("generation", type=click.IntRange(min=1))
@click.option("--reason", required=True, help="why it may be promoted (recorded in the pointer and the diary)")
@_BY
@click.option("--force", is_flag=True, help="approve even though a newer generation was promoted since")
@click.option("--json", "as_json", is_flag=True, help="print the scope's generations as JSON")
@api_option
def quarantine_approve(
    scope: str, generation: int, reason: str, by: str, force: bool, as_json: bool, api_url: str | None
) -> None:
    """Promote quarantined GENERATION of SCOPE: readers see it from now on."""
    state = _decide(
        scope,
        api_url,
        lambda client: client.approve(scope, generation, by=by, reason=reason, force=force),
        lambda stores, publish: decisions.approve(
            stores.memories,
            stores.transcripts,
            stores.diary,
            scope,
            generation,
            by,
            reason,
            force=force,
            publish=publish,
        ),
    )
    if as_json:
        emit_json(state)
    else:
        click.echo(f"{scope}: generation {generation} approved by {by} and active")


@quarantine.command("reject")
@click.argument("scope")
@click.argument("generation", type=click.IntRange(min=1))
@click.option("--reason", required=True, help="why it is rejected (recorded in the pointer and the diary)")
@_BY
@click.option("--json", "as_json", is_flag=True, help="print the scope's generations as JSON")
@api_option
def quarantine_reject(scope: str, generation: int, reason: str, by: str, as_json: bool, api_url: str | None) -> None:
    """Reject quarantined GENERATION of SCOPE and delete its records."""
    state = _decide(
        scope,
        api_url,
        lambda client: client.reject(scope, generation, by=by, reason=reason),
        lambda stores, publish: decisions.reject(
            stores.memories, stores.diary, scope, generation, by, reason, publish=publish
        ),
    )
    if as_json:
        emit_json(state)
    else:
        click.echo(f"{scope}: generation {generation} rejected by {by}; its records are deleted")


def _decide(
    scope: str,
    api_url: str | None,
    through_api: Callable[[Client], Generations],
    in_store: Callable[[Stores, AuditPublisher], ScopeState],
) -> dict[str, Any]:
    """One operator decision on SCOPE's generations (rollback, approve, reject): through the
    running worker's API when one is given, else on the store this process opens, its audit
    event published as the operator's. Returns the scope's generations after it, as JSON."""
    parse_scope(scope)
    settings = load_settings()
    if api_url:
        with api_client(settings, api_url, operator=True) as client:
            return _generations_json(through_api(client))
    with writable_stores(settings) as stores:
        return generations_json(in_store(stores, AuditPublisher(settings, "operator")))


def _generations_json(generations: Generations) -> dict[str, Any]:
    """The scope's generations as the API answered them (the shape `generations_json` gives)."""
    return {
        "scope": generations.scope,
        "active_generation": generations.active_generation,
        "next_generation": generations.next_generation,
        "generations": [g.model_dump(mode="json") for g in generations.generations],
    }


# --- settings
@click.group("settings", cls=Group)
def settings_group() -> None:
    """The settings this process reads from the environment."""


@settings_group.command("show")
@json_option
def settings_show(as_json: bool) -> None:
    """Every setting with its value (secrets masked), as the workers would read them here."""
    values = load_settings().model_dump(mode="json")
    if as_json:
        emit_json(values)
        return
    for name, value in values.items():
        shown = json.dumps(value) if isinstance(value, (dict, list)) else ("-" if value is None else value)
        click.echo(f"{name} = {shown}")


@click.command(cls=Command)
@click.argument("scope")
@click.option("--wait/--no-wait", default=True, show_default=True, help="wait for the tombstone audit event")
@click.option("--timeout", "timeout_s", default=120.0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def forget(scope: str, wait: bool, timeout_s: float, as_json: bool) -> None:
    """The right to be forgotten: delete SCOPE's memories, transcripts and signals.

    The stream worker drops the scope's signals and hands the request to the consolidation
    worker that owns the scope, which deletes what it holds and publishes a tombstone."""
    parse_scope(scope)
    settings = load_settings()
    require_topics(settings, [settings.topics.control, settings.topics.audit])
    reader = AuditReader(settings, from_now=True) if wait else None
    try:
        requests = send_control(settings, [scope], "forget", reason="dreamstream forget")
        if reader is None:
            click.echo(
                json.dumps({"scope": scope, "request_ids": list(requests)}) if as_json else f"forget requested: {scope}"
            )
            return
        reader.wait_for(requests, timeout_s)
        tombstone = next(
            e for e in reader.events if isinstance(e, ScopeForgottenEvent) and set(e.request_ids) & set(requests)
        )
    except (ControlError, StopIteration) as err:
        raise click.ClickException(f"forget of {scope} not confirmed: {err or 'no tombstone event'}") from err
    finally:
        if reader is not None:
            reader.close()
    if as_json:
        click.echo(tombstone.model_dump_json())
    else:
        click.echo(f"forgot {scope}: deleted {tombstone.deleted}")
