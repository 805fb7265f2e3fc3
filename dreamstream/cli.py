"""The `dreamstream` command."""

from __future__ import annotations

import importlib
import json
import logging
import sys
from pathlib import Path

import click
from pydantic import ValidationError  # noqa: E402

from schemas.settings import get_settings  # noqa: E402

# Subcommands living in other modules are imported only when used, so a worker process does not
# pay for the operator tooling's imports (Qdrant client, stores) at start-up.
LAZY_COMMANDS = {
    "kafka": "dreamstream_tools.cli_kafka:kafka",
    "memories": "dreamstream.cli_read:memories",
    "generations": "dreamstream.cli_read:generations",
    "jobs": "dreamstream.cli_read:jobs",
    "audit": "dreamstream.cli_read:audit",
    "replay": "dreamstream.cli_ops:replay",
    "trigger": "dreamstream.cli_ops:trigger",
    "rollback": "dreamstream.cli_ops:rollback",
    "quarantine": "dreamstream.cli_ops:quarantine",
    "eval": "dreamstream_tools.cli_eval:eval_command",
    "eval-data": "dreamstream_tools.cli_eval:eval_data_command",
    "mcp": "dreamstream.mcp_server:mcp_command",
    "settings": "dreamstream.cli_ops:settings_group",
}


class LazyGroup(click.Group):
    """click's documented lazy-loading pattern: resolve a subcommand on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[name].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dreamstream")
    except PackageNotFoundError:
        return "unknown (not installed)"


@click.group(cls=LazyGroup)
@click.version_option(_version(), "--version", prog_name="dreamstream", message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="log at DEBUG")
def main(verbose: bool) -> None:
    """Dreaming for fleets of AI agents: consolidate long-term memory from what was actually said."""
    try:
        level = "DEBUG" if verbose else get_settings().log_level
    except ValidationError as err:
        from dreamstream.cli_common import describe_error

        raise click.ClickException(f"invalid settings: {describe_error(err)}") from None
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Qdrant request otherwise


@main.command()
@click.argument("event_files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object {scopes, audit}")
@click.option("--timeout", "timeout_s", default=240.0, show_default=True, help="seconds to wait for the passes")
def demo(event_files: tuple[Path, ...], as_json: bool, timeout_s: float) -> None:
    """Run the pipeline end to end on EVENT_FILES (default: ../shared/fixtures) and show the result."""
    from dreamstream_tools.demo import default_event_files, render, run_demo

    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("dreamstream.kafka").setLevel(logging.ERROR)  # broker start-up retries are expected here
    say = (lambda msg: click.echo(msg, err=True)) if as_json else click.echo
    try:
        result = run_demo(get_settings(), list(event_files) or default_event_files(), timeout_s, say)
    except (OSError, RuntimeError) as err:
        raise click.ClickException(str(err)) from err
    click.echo(json.dumps(result.to_json(), indent=2) if as_json else render(result))


def serve_metrics(settings, ready=None) -> None:
    """Prometheus endpoint of this worker process, with `/healthz` and `/readyz` for the probes,
    on metrics_host:metrics_port (off when 0)."""
    if settings.metrics_port:
        from plumbing.metrics import serve_probes

        serve_probes(settings.metrics_host, settings.metrics_port, ready)


def prepare_home(settings) -> None:
    """Workers keep local state under `home` (Faust's data directory, embedded Qdrant): create it,
    and say clearly when that is impossible."""
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise click.ClickException(f"cannot create DREAMSTREAM_HOME {settings.home}: {err.strerror}") from None


def check_engine(settings) -> None:
    """Refuse to start a worker whose LLM engine could never answer: no model, or no key for a
    hosted provider (a local endpoint in llm_api_base may need none)."""
    if settings.engine != "llm":
        return
    if not settings.llm_model.strip():
        raise click.ClickException("engine is llm but DREAMSTREAM_LLM_MODEL is empty")
    if settings.llm_api_key is None and not settings.llm_api_base:
        raise click.ClickException(
            "engine is llm but neither DREAMSTREAM_LLM_API_KEY nor DREAMSTREAM_LLM_API_BASE is set"
        )


@main.group()
def worker() -> None:
    """Run a worker in the foreground."""


@worker.command("streams")
def worker_streams() -> None:
    """The stream worker (hosted by Faust): validate, keep signals, emit dream jobs."""
    from streams.app import app, web_host

    settings = get_settings()
    prepare_home(settings)
    serve_metrics(settings)
    web = (
        ["--web-host", web_host, "--web-port", str(settings.streams_web_port)]
        if settings.streams_web_port
        else ["--without-web"]
    )
    sys.argv = ["dreamstream-streams", "worker", *web, "--loglevel", settings.log_level.lower()]
    app.main()


@worker.command("consumers")
def worker_consumers() -> None:
    """The consolidation worker: index transcripts, run dream passes, publish audit events."""
    import signal

    from consumers.api import start_api
    from consumers.runtime import open_runtime
    from consumers.worker import ConsolidationWorker

    settings = get_settings()
    prepare_home(settings)
    check_engine(settings)
    runtime = open_runtime(settings)
    consolidation = ConsolidationWorker(settings, runtime)
    serve_metrics(settings, ready=lambda: consolidation.assigned)
    api = start_api(settings, runtime, lambda: consolidation.assigned) if settings.api_port else None
    signal.signal(signal.SIGTERM, lambda *_: consolidation.stop())
    try:
        consolidation.run()
    except KeyboardInterrupt:
        consolidation.stop()
    finally:
        if api is not None:
            api.stop()
        runtime.close()


@main.command()
@click.argument("scope")
@click.option("--wait/--no-wait", default=True, show_default=True, help="wait for the tombstone audit event")
@click.option("--timeout", "timeout_s", default=120.0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def forget(scope: str, wait: bool, timeout_s: float, as_json: bool) -> None:
    """The right to be forgotten: delete SCOPE's memories, transcripts and signals.

    The stream worker drops the scope's signals and hands the request to the consolidation
    worker that owns the scope, which deletes what it holds and publishes a tombstone."""
    from dreamstream.control import AuditReader, ControlError, send_control
    from schemas import ScopeForgottenEvent
    from schemas.scope import ScopeError, parse_scope

    try:
        parse_scope(scope)
    except ScopeError as err:
        raise click.ClickException(str(err)) from err
    settings = get_settings()
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


if __name__ == "__main__":
    main()
