"""`dreamstream kafka ...`: run the local single-node broker and create the catalog's topics."""

from __future__ import annotations

import json

import click

from dreamstream.topic_admin import TopicAdminError, ensure_topics
from dreamstream_tools import local_kafka
from dreamstream_tools.local_kafka import LocalKafkaError
from schemas.settings import get_settings


@click.group()
def kafka() -> None:
    """Local Apache Kafka (KRaft, 127.0.0.1) for development and the demo."""


@kafka.command()
@click.option("--port", type=int, default=9092, show_default=True, help="client port")
@click.option("--controller-port", type=int, default=None, help="KRaft controller port [default: port + 1]")
@click.option("--heap", default="512m", show_default=True, help="JVM max heap")
@click.option("--timeout", "timeout_s", type=float, default=90.0, show_default=True, help="seconds to wait")
def start(port: int, controller_port: int | None, heap: str, timeout_s: float) -> None:
    """Start the broker (or report the one already running)."""
    try:
        broker = local_kafka.start(get_settings().home, port, controller_port, heap, timeout_s)
    except LocalKafkaError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Kafka running on {broker.bootstrap} (pid {broker.pid}, log {broker.log_file})")


@kafka.command()
@click.option("--port", type=int, default=None, help="only the broker on this port [default: all]")
@click.option("--timeout", "timeout_s", type=float, default=30.0, show_default=True, help="seconds before SIGKILL")
def stop(port: int | None, timeout_s: float) -> None:
    """Stop the broker(s) started from this home; data is kept."""
    try:
        stopped = local_kafka.stop(get_settings().home, timeout_s, port)
    except LocalKafkaError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"stopped Kafka on port(s) {', '.join(map(str, stopped))}" if stopped else "no Kafka was running")


@kafka.command()
@click.option("--port", type=int, default=None, help="client port [default: the running broker, else 9092]")
@click.option("--json", "as_json", is_flag=True, help="print machine-readable JSON")
def status(port: int | None, as_json: bool) -> None:
    """Show whether the broker runs, its pid, bootstrap address and data dir."""
    try:
        state = local_kafka.status(get_settings().home, port)
    except LocalKafkaError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(state, indent=2))
        return
    if state["running"]:
        click.echo(f"running on {state['bootstrap']} (pid {state['pid']})")
    else:
        click.echo(f"not running ({state['bootstrap']})")
    click.echo(f"data: {state['data_dir']}\nlog:  {state['log_file']}")


@kafka.command()
@click.option("--timeout", "timeout_s", type=float, default=30.0, show_default=True, help="seconds to wait")
def topics(timeout_s: float) -> None:
    """Create every catalog topic that is missing (idempotent) and list them."""
    settings = get_settings()
    try:
        names = ensure_topics(settings, timeout_s)
    except TopicAdminError as exc:
        raise click.ClickException(str(exc)) from exc
    catalog = settings.topics
    click.echo(
        f"{len(names)} topics on {settings.kafka_bootstrap_servers} "
        f"({catalog.partitions} partitions, replication {catalog.replication}):"
    )
    for name in names:
        click.echo(f"  {name}")
