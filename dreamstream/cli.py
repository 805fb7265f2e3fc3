"""The `dreamstream` command."""

from __future__ import annotations

import importlib
import logging
import sys
from importlib.metadata import EntryPoint, entry_points

import click
from pydantic import ValidationError  # noqa: E402
from pydantic_settings import SettingsError

from schemas.settings import get_settings  # noqa: E402

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

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[name].split(":")
            return getattr(importlib.import_module(module), attr)
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
    try:
        level = "DEBUG" if verbose else get_settings().log_level
    except (ValidationError, SettingsError) as err:
        from dreamstream.cli_common import describe_error

        raise click.ClickException(f"invalid settings: {describe_error(err)}") from None
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Qdrant request otherwise


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


if __name__ == "__main__":
    main()
