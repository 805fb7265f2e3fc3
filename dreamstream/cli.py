"""The `dreamstream` command.

It starts quickly: `--version` and `--help` import nothing but click (the settings, pydantic and
every subcommand's module load only when a subcommand runs), and `--help` lists the subcommands
from the short help kept here, without importing them (`python -m bench.cli` prints the times).
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

import click
from click.utils import make_default_short_help

if TYPE_CHECKING:
    from schemas.settings import Settings

# Subcommands living in other modules are imported only when used, so a worker process does not
# pay for the operator tooling's imports (Qdrant client, stores) at start-up.
LAZY_COMMANDS = {
    "memories": "dreamstream.cli_read:memories",
    "generations": "dreamstream.cli_read:generations",
    "jobs": "dreamstream.cli_read:jobs",
    "audit": "dreamstream.cli_read:audit",
    "replay": "dreamstream.cli_ops:replay",
    "trigger": "dreamstream.cli_ops:trigger",
    "rollback": "dreamstream.cli_ops:rollback",
    "quarantine": "dreamstream.cli_ops:quarantine",
    "mcp": "dreamstream.mcp_server:mcp_command",
    "settings": "dreamstream.cli_ops:settings_group",
    "forget": "dreamstream.cli_ops:forget",
}
# What `--help` says of each, without importing it (a unit test holds each to its command's own help).
LAZY_HELP = {
    "memories": "A scope's curated memories: list them, follow one, its change trail, diff generations.",
    "generations": "SCOPE's kept generations: which one readers see, which are quarantined, rejected or kept "
    "for rollback.",
    "jobs": "SCOPE's diary: one line per pass (and operator decision) with trigger, outcome, motives and model use.",
    "audit": "The audit topic: job lifecycle and memory-change events, as downstream services see them.",
    "replay": "Produce the events of EVENT_FILES (JSONL: turns, memory-adds, control events) onto the input "
    "topics, in timestamp order, as agent runtimes would.",
    "trigger": "Ask SCOPES to dream now (a manual trigger control event each).",
    "rollback": "Make an earlier kept generation of SCOPE active again [default: the one before the active one].",
    "quarantine": "Candidate generations the gate held back: list them, approve or reject them.",
    "mcp": "Serve a scope's memory to agents over MCP (stdio): search, read, context, add, correct, list, trigger.",
    "settings": "The settings this process reads from the environment.",
    "forget": "The right to be forgotten: delete SCOPE's memories, transcripts and signals.",
}

# Development commands come from the `dreamstream-tools` distribution (tools/), which the runtime
# never imports: it declares them as entry points in this group (tools/pyproject.toml), and any
# installed distribution may add commands the same way. A built-in command keeps its name.
COMMANDS_ENTRY_POINTS = "dreamstream.commands"
# What dreamstream-tools provides: listed by `dreamstream --help` whether installed or not, and
# without it each answers with how to install it.
DEV_COMMANDS = {
    "demo": "the whole pipeline on the fixtures",
    "kafka": "the local Kafka broker for development",
    "eval": "measure dreaming on an evaluation set",
    "eval-data": "write a synthetic evaluation set",
    "eval-variant": "write an evaluation set in another shape",
}
TOOLS_INSTALL = "python3 -m pip install -e ./tools"


def installed_commands() -> dict[str, EntryPoint]:
    """The subcommands installed distributions declare in the `dreamstream.commands` group."""
    return {ep.name: ep for ep in entry_points(group=COMMANDS_ENTRY_POINTS)}


def not_installed(name: str) -> click.Command:
    """A stand-in for a development command whose distribution is not installed: whatever its
    arguments, it says so on one line and exits 2."""
    message = (
        f"Error: `dreamstream {name}` is a development command from dreamstream-tools, which is not installed; "
        f"from the repository root: {TOOLS_INSTALL}"
    )

    def run(args: tuple[str, ...]) -> None:
        click.echo(message, err=True)
        raise click.exceptions.Exit(2)

    return click.Command(
        name,
        callback=run,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        help=f"{DEV_COMMANDS[name].capitalize()}: not installed ({TOOLS_INSTALL}).",
        short_help=f"[dev, not installed] {DEV_COMMANDS[name]}",
        context_settings={"ignore_unknown_options": True},
        add_help_option=False,
    )


class LazyGroup(click.Group):
    """click's documented lazy-loading pattern: resolve a subcommand on first use; the built-in ones
    first, then the entry points, then a stand-in for a development command that is not installed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS, *installed_commands(), *DEV_COMMANDS})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, with the short help of lazy and development commands taken from here
        rather than from their modules (importing them all made `--help` take seconds)."""
        names = self.list_commands(ctx)
        installed = installed_commands()
        limit = formatter.width - 6 - max(map(len, names), default=0)
        rows = []
        for name in names:
            if name in LAZY_HELP:
                text = make_default_short_help(LAZY_HELP[name], limit)
            elif name in DEV_COMMANDS:
                what = DEV_COMMANDS[name]
                text = what[0].upper() + what[1:] if name in installed else f"[dev, not installed] {what}"
            else:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                text = command.get_short_help_str(limit)
            rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[name].split(":")
            lazy = getattr(importlib.import_module(module), attr)
            if not isinstance(lazy, click.Command):
                raise click.ClickException(f"`dreamstream {name}` ({LAZY_COMMANDS[name]}) is not a click command")
            return lazy
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        entry_point = installed_commands().get(name)
        if entry_point is not None:
            try:
                command = entry_point.load()
            except ImportError as err:
                raise click.ClickException(f"cannot load `dreamstream {name}` ({entry_point.value}): {err}") from err
            if not isinstance(command, click.Command):
                raise click.ClickException(f"`dreamstream {name}` ({entry_point.value}) is not a click command")
            return command
        return not_installed(name) if name in DEV_COMMANDS else None


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
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from schemas.settings import get_settings

    try:
        level = "DEBUG" if verbose else get_settings().log_level
    except (ValidationError, SettingsError) as err:
        from dreamstream.cli_common import describe_error

        raise click.ClickException(f"invalid settings: {describe_error(err)}") from None
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Qdrant request otherwise


def serve_metrics(settings: Settings, ready: Callable[[], bool] | None = None) -> None:
    """Prometheus endpoint of this worker process, with `/healthz` and `/readyz` for the probes,
    on metrics_host:metrics_port (off when 0)."""
    if settings.metrics_port:
        from plumbing.metrics import serve_probes

        serve_probes(settings.metrics_host, settings.metrics_port, ready)


def prepare_home(settings: Settings) -> None:
    """Workers keep local state under `home` (Faust's data directory, embedded Qdrant): create it,
    and say clearly when that is impossible."""
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise click.ClickException(f"cannot create DREAMSTREAM_HOME {settings.home}: {err.strerror}") from None


def check_engine(settings: Settings) -> None:
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


_EXIT_WITH_PARENT = click.option(
    "--exit-with-parent",
    type=click.IntRange(min=1),
    default=None,
    metavar="PID",
    help="stop when the process PID is no longer this worker's parent (a local harness that started it)",
)


@worker.command("streams")
@_EXIT_WITH_PARENT
def worker_streams(exit_with_parent: int | None) -> None:
    """The stream worker (hosted by Faust): validate, keep signals, emit dream jobs."""
    from dreamstream.parent_watch import exit_with_parent as watch_parent
    from schemas.settings import get_settings
    from streams.app import app, web_host

    watch_parent(exit_with_parent)
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
@_EXIT_WITH_PARENT
def worker_consumers(exit_with_parent: int | None) -> None:
    """The consolidation worker: index transcripts, run dream passes, publish audit events."""
    import signal

    from consumers.api import start_api
    from consumers.runtime import open_runtime
    from consumers.worker import ConsolidationWorker
    from dreamstream.parent_watch import exit_with_parent as watch_parent
    from schemas.settings import get_settings

    watch_parent(exit_with_parent)
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


if __name__ == "__main__":
    main()
