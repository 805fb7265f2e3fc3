"""`dreamstream demo`: the whole pipeline on the fixtures, end to end (see `demo.py`).

Joins the `dreamstream` command through the `dreamstream.commands` entry point (tools/pyproject.toml);
the pipeline's imports wait until the command runs, so `dreamstream --help` stays quick.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
from pathlib import Path

import click


@click.command()
@click.argument("event_files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print one JSON object {scopes, audit}")
@click.option("--timeout", "timeout_s", default=240.0, show_default=True, help="seconds to wait for the passes")
@click.option(
    "--kafka-port",
    default=9092,
    show_default=True,
    type=click.IntRange(1, 65_535),
    help="port of the local broker the demo starts (when KAFKA_BOOTSTRAP_SERVERS is not set)",
)
def demo(event_files: tuple[Path, ...], as_json: bool, timeout_s: float, kafka_port: int) -> None:
    """Run the pipeline end to end on EVENT_FILES (default: ../shared/fixtures) and show the result."""
    from dreamstream_tools.demo import default_event_files, render, run_demo
    from schemas.settings import get_settings

    # SIGTERM and SIGHUP end the demo like ^C does: its `finally` blocks stop the workers and the
    # broker it started (an exit by signal would leave them running).
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda number, _frame: sys.exit(128 + number))

    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("dreamstream.kafka").setLevel(logging.ERROR)  # broker start-up retries are expected here
    say = (lambda msg: click.echo(msg, err=True)) if as_json else click.echo
    try:
        result = run_demo(get_settings(), list(event_files) or default_event_files(), timeout_s, say, kafka_port)
    except (OSError, RuntimeError) as err:
        raise click.ClickException(str(err)) from err
    click.echo(json.dumps(result.to_json(), indent=2) if as_json else render(result))
