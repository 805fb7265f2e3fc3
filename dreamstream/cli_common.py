"""What the `dreamstream` read and operator commands share: settings, opening the store (or
reading through a worker's HTTP API), the audit topic, output as JSON or tables, progress bars,
and errors as one clear line with a non-zero exit.

Embedded Qdrant allows one client per directory, and a running consolidation worker holds it. A
read command therefore reads through the worker's HTTP API when one is given by `--api URL` (or
DREAMSTREAM_API_URL), and otherwise opens the store itself (a Qdrant server, or embedded with no
worker running); both are a `ScopeReader`, so each command has one code path. The API is
read through `dreamstream.client`, the one HTTP client of it.

Imports that cost (a Qdrant client, the embedder, httpx) happen where they are used, so a command
that never opens the store never loads them.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click
from confluent_kafka import Consumer, KafkaError, KafkaException
from pydantic import ValidationError
from pydantic_settings import SettingsError

from dreaming.store.diary_entry import DiaryEntry
from dreaming.store.filters import NO_FILTER, MemoryFilter
from dreaming.store.history import ScopeReader
from dreaming.store.pointer import ScopeState
from schemas import MemoryRecord, parse_scope
from schemas.errors import describe_validation_error
from schemas.settings import Settings, get_settings

if TYPE_CHECKING:  # a Qdrant client and the stores load only when a command opens the store
    from dreaming.store import Diary, MemoryStore, TranscriptStore
    from dreaming.store.client import StoreClient
    from dreaming.store.history import ScopeView
    from dreamstream.client import Client

log = logging.getLogger("dreamstream.cli")
P = ParamSpec("P")
R = TypeVar("R")


# --- errors: one clear line, non-zero exit
class CliError(RuntimeError):
    """An expected failure whose message is already the line to show."""


class StoreLocked(CliError):
    pass


def describe_error(err: BaseException) -> str:
    """One line for any error: the message for the ones we expect, the type for the rest."""
    if isinstance(err, ValidationError):
        text = describe_validation_error(err, limit=1)
    elif isinstance(err, SettingsError):  # a variable that is not valid JSON: the parser says where
        text = f"{err}: {err.__cause__}" if err.__cause__ else str(err)
    elif isinstance(err, KafkaException) and err.args and isinstance(err.args[0], KafkaError):
        text = f"Kafka: {_kafka_reason(err)}"
    elif isinstance(err, KeyError):
        text = f"missing {err}"
    elif isinstance(err, (CliError, LookupError, ValueError, OSError, KafkaException, RuntimeError)):
        text = str(err) or type(err).__name__
    else:
        text = f"unexpected {type(err).__name__}: {err} (run `dreamstream -v ...` for the traceback)"
    return " ".join(text.split())


class UsageError(click.ClickException):
    exit_code = 2


def _one_line_usage(err: click.UsageError, info_name: str | None) -> click.ClickException:
    if isinstance(err, click.exceptions.NoArgsIsHelpError):  # a bare group: its help, as click shows it
        return err
    path = err.ctx.command_path if err.ctx else info_name
    return UsageError(f"{err.format_message()} (see `{path} --help`)")


class _OneLineUsage(click.Command):
    """Usage errors (a missing argument, an unknown option) as one line too, exit status 2."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as err:
            raise _one_line_usage(err, info_name) from None


class Command(_OneLineUsage):
    """A command whose failures end as `Error: <one line>` and exit status 1 (2 for a usage
    error), never a traceback (`dreamstream -v` logs the traceback at DEBUG)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            raise click.Abort() from None
        except Exception as err:  # the CLI boundary: every error becomes one line and exit 1
            log.debug("command failed", exc_info=True)
            raise click.ClickException(describe_error(err)) from err


class Group(_OneLineUsage, click.Group):
    command_class = Command
    group_class = type  # subgroups are Groups too

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:
            raise _one_line_usage(err, ctx.info_name) from None


def load_settings() -> Settings:
    """The process's settings; invalid ones end the command with one line (usable in any click
    callback, the `main` group's included)."""
    try:
        return get_settings()
    except (ValidationError, SettingsError) as err:
        raise click.ClickException(f"invalid settings: {describe_error(err)}") from None


def operator_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "operator"


# --- output
def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], max_width: int = 72) -> str:
    """A plain aligned table; cells longer than `max_width` are cut with an ellipsis."""
    cells = [[_cell(v, max_width) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.upper().ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def _cell(value: Any, max_width: int) -> str:
    if value is None:
        text = "-"
    elif isinstance(value, datetime):
        text = when(value)
    else:
        text = " ".join(str(value).split())
    return text if len(text) <= max_width else text[: max_width - 1] + "…"


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "-"


@contextlib.contextmanager
def progress(length: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (stdout stays clean for --json); yields `advance(n)`."""
    with click.progressbar(length=length, label=label, file=sys.stderr, show_pos=True, show_percent=True) as bar:
        yield bar.update


# --- the store, directly or through the worker's API
@dataclass
class Stores:
    client: StoreClient
    memories: MemoryStore
    transcripts: TranscriptStore
    diary: Diary

    def view(self) -> ScopeView:
        from dreaming.store.history import ScopeView

        return ScopeView(self.memories, self.diary)

    def close(self) -> None:
        self.client.close()


def open_stores(settings: Settings) -> Stores:
    """This process's own client on the store. Raises StoreLocked when another process (a running
    worker) holds the embedded store."""
    from dreaming.embedding import make_embedder
    from dreaming.store import Diary, MemoryStore, TranscriptStore, open_qdrant
    from dreaming.store.edge import StoreInUse

    try:
        client = open_qdrant(settings)
    except StoreInUse as err:
        raise StoreLocked(str(err)) from err
    except RuntimeError as err:
        # qdrant-client's local mode turns portalocker's LockException into this RuntimeError.
        if "already accessed by another instance" not in str(err):
            raise
        raise StoreLocked(
            f"the embedded store {settings.qdrant_path} is in use by another process (a running worker)"
        ) from err
    embedder = make_embedder(settings)
    prefix = settings.collection_prefix
    return Stores(
        client,
        MemoryStore(client, prefix, embedder.dims, embedder.embed, settings.generations_kept),
        TranscriptStore(client, prefix, embedder.dims, embedder.embed),
        Diary(client, prefix),
    )


@contextlib.contextmanager
def writable_stores(settings: Settings) -> Iterator[Stores]:
    """For operator commands: they write, so they need the store itself, not the API."""
    try:
        stores = open_stores(settings)
    except StoreLocked as err:
        raise StoreLocked(f"{err}: stop the worker first, or run the workers on a Qdrant server (QDRANT_URL)") from err
    try:
        yield stores
    finally:
        stores.close()


def api_client(settings: Settings, api_url: str, operator: bool = False) -> Client:
    """The HTTP API's client (`dreamstream.client`), with the token from the settings: the
    operator's (`api_operator_token`, when set) for the operator's decisions."""
    from dreamstream.client import Client

    token = (settings.api_operator_token if operator else None) or settings.api_token
    return Client(api_url, token.get_secret_value() if token else None, timeout_s=120.0 if operator else 60.0)


@contextlib.contextmanager
def scope_reader(settings: Settings, api_url: str | None) -> Iterator[ScopeReader]:
    """Through the worker's HTTP API when one is given (`--api`, DREAMSTREAM_API_URL): what the
    running worker serves, without loading a store; else the store, opened by this process."""
    if api_url:
        with api_client(settings, api_url) as client:
            yield ClientReader(client)
        return
    try:
        stores = open_stores(settings)
    except StoreLocked as err:
        raise StoreLocked(
            f"{err}: pass --api URL (or set DREAMSTREAM_API_URL) to read through the worker's HTTP API, "
            "or stop the worker"
        ) from err
    try:
        yield stores.view()
    finally:
        stores.close()


class ClientReader:
    """`ScopeReader` over the consolidation worker's HTTP API, through `dreamstream.client`."""

    PAGE = 1_000

    def __init__(self, client: Client) -> None:
        self._client = client
        self._histories: dict[tuple[str, str], dict[int, MemoryRecord | None]] = {}

    def state(self, scope: str) -> ScopeState:
        generations = self._client.generations(scope)
        return ScopeState(
            scope=scope,
            tenant=parse_scope(scope)[0],
            active_generation=generations.active_generation,
            next_generation=generations.next_generation,
            generations=generations.generations,
        )

    def records(
        self, scope: str, generation: int | None = None, include_inactive: bool = False, where: MemoryFilter = NO_FILTER
    ) -> list[MemoryRecord]:
        curated = client_filter(where, consolidated=True)  # a generation's records, not the inbox
        out: list[MemoryRecord] = []
        cursor = None
        while True:
            page = self._client.memories(
                scope, self.PAGE, cursor, include_inactive, generation=generation, where=curated
            )
            out += page.memories
            if not page.next_cursor:
                return out
            cursor = page.next_cursor

    def pending(self, scope: str, where: MemoryFilter = NO_FILTER) -> list[MemoryRecord]:
        from dreamstream.client import NotFound

        if not where.wants_pending:
            return []
        try:
            return list(
                self._client.memories(scope, self.PAGE, where=client_filter(where, consolidated=False)).memories
            )
        except NotFound:  # a scope that holds nothing at all
            return []

    def memory(self, scope: str, generation: int, memory_id: str) -> MemoryRecord | None:
        """From one request for the memory's whole history (kept for this reader's command), not
        one request per generation."""
        key = (scope, memory_id)
        if key not in self._histories:
            versions = self._client.memory(scope, memory_id).versions
            self._histories[key] = {v.generation: v.record for v in versions}
        return self._histories[key].get(generation)

    def diary(self, scope: str) -> list[DiaryEntry]:
        return self._client.diary(scope)

    def scopes(self, tenant: str | None = None) -> list[str]:
        return self._client.scopes(tenant)

    def search(
        self, scope: str, query: str, k: int = 10, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        return [(h.memory, h.score) for h in self._client.search(scope, query, k, where=client_filter(where))]

    def search_as_of(
        self, scope: str, query: str, k: int, at: datetime, where: MemoryFilter = NO_FILTER
    ) -> list[tuple[MemoryRecord, float]]:
        hits = self._client.search(scope, query, k, where=client_filter(where), as_of=at)
        return [(h.memory, h.score) for h in hits]


def client_filter(where: MemoryFilter, consolidated: bool | None = None) -> Any:
    """The client's `Filter` for a `MemoryFilter` (`consolidated` overrides the filter's own)."""
    from dreamstream.client import Filter

    return Filter(
        tier=where.tier,
        origin=where.origin,
        consolidated=where.consolidated if consolidated is None else consolidated,
        created_after=where.created_after,
        created_before=where.created_before,
        updated_after=where.updated_after,
        updated_before=where.updated_before,
        metadata=dict(where.metadata) or None,
        about=where.about,
    )


# --- Kafka: topics and the audit topic
def _kafka_reason(err: KafkaException) -> str:
    return err.args[0].str() if err.args and isinstance(err.args[0], KafkaError) else str(err)


def quiet_kafka() -> dict[str, Any]:
    """librdkafka logs connection failures to stderr itself; a command reports them as its one
    error line instead (they go to logging, shown with `dreamstream -v`)."""
    return (
        {"logger": logging.getLogger("dreamstream.cli.kafka")} if log.isEnabledFor(logging.DEBUG) else {"log_level": 0}
    )


def require_topics(settings: Settings, names: Iterable[str], timeout_s: float = 10.0) -> None:
    """Fail with one line when the broker is unreachable or a topic is missing, before producing."""
    consumer = Consumer({**settings.kafka_client_config(), "group.id": "dreamstream-cli-probe", **quiet_kafka()})
    try:
        try:
            topics = consumer.list_topics(timeout=timeout_s).topics
        except KafkaException as err:
            raise CliError(f"cannot reach Kafka at {settings.kafka_bootstrap_servers}: {_kafka_reason(err)}") from err
        missing = [n for n in names if n not in topics or topics[n].error is not None]
        if missing:
            raise CliError(
                f"topic(s) {', '.join(missing)} missing on {settings.kafka_bootstrap_servers}: "
                f"run `dreamstream kafka topics`"
            )
        for name in names:  # a scope's events go to murmur2(key) % partitions: the counts must agree
            found = len(topics[name].partitions)
            if found != settings.partitions:
                raise CliError(
                    f"topic {name} has {found} partitions but the settings say {settings.partitions}: "
                    f"set DREAMSTREAM_PARTITIONS={found} (every topic of a deployment shares one count)"
                )
    finally:
        consumer.close()


# --- options every read command takes
def json_option(fn: Callable[P, R]) -> Callable[P, R]:
    return click.option("--json", "as_json", is_flag=True, help="print JSON instead of a table")(fn)


def api_option(fn: Callable[P, R]) -> Callable[P, R]:
    return click.option(
        "--api",
        "api_url",
        envvar="DREAMSTREAM_API_URL",
        metavar="URL",
        help="the consolidation worker's HTTP API, used when a running worker holds the embedded store "
        "[env DREAMSTREAM_API_URL; token from DREAMSTREAM_API_TOKEN]",
    )(fn)
