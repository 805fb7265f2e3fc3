"""`dreamstream eval`, `eval-data` and `eval-variant`: measure dreaming on an evaluation set.

They join the `dreamstream` command through the `dreamstream.commands` entry points
(tools/pyproject.toml); `python -m dreamstream_tools.cli_eval eval ...` runs the same commands on their own.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

import click

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def _one_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


@click.command("eval")
@click.option(
    "--events", "events", required=True, type=_FILE, help="conversation turns (JSONL); memory-add lines may be mixed in"
)
@click.option("--questions", "questions", required=True, type=_FILE, help="questions (JSONL)")
@click.option("--memory-adds", "memory_adds", type=_FILE, help="memory-adds (JSONL)")
@click.option("--engine", type=click.Choice(["offline", "llm"]), help="dream engine (default: the configured one)")
@click.option(
    "--llm-base-url",
    "llm_base_url",
    help="with --engine llm: any OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: llm_api_base)",
)
@click.option("--llm-model", "llm_model", help="with --engine llm: the litellm model name, e.g. openai/qwen2.5-7b")
@click.option(
    "--k",
    "k",
    default=10,
    show_default=True,
    type=click.IntRange(min=1),
    help="memories (and, for the baseline, messages) retrieved per question",
)
@click.option("--direct", is_flag=True, help="run the dream pass on per-scope snapshots without Kafka (fast)")
@click.option(
    "--pass-every",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="with --direct: one pass per this many events of a scope (0 = one pass over everything)",
)
@click.option(
    "--timeout",
    "timeout_s",
    default=600.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="seconds to wait for the pipeline's passes",
)
@click.option(
    "--budget-words",
    type=click.IntRange(min=1),
    help="words both sides read per question at equal budget (default: the words of the memory side's top k)",
)
@click.option(
    "--scopes",
    "scope_patterns",
    multiple=True,
    metavar="PATTERN",
    help="only the scopes matching this shell-style pattern, e.g. 'eval/locomo/conv-2*' (repeatable)",
)
@click.option(
    "--limit-scopes", default=0, type=click.IntRange(min=0), help="only the first N (selected) scopes, in name order"
)
@click.option(
    "--supersessions-sample",
    default=0,
    type=click.IntRange(min=0),
    metavar="N",
    help="add N random supersessions (old text, new text, the new one's evidence) to the report, to judge by hand",
)
@click.option("--seed", default=0, show_default=True, type=int, help="seed of the supersession sample")
@click.option(
    "--embedding-cache",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="DREAMSTREAM_EVAL_EMBED_CACHE",
    help="keep MiniLM vectors on disk in DIR between runs (env DREAMSTREAM_EVAL_EMBED_CACHE); never changes results",
)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the table")
def eval_command(
    events: Path,
    questions: Path,
    memory_adds: Path | None,
    engine: str | None,
    llm_base_url: str | None,
    llm_model: str | None,
    k: int,
    direct: bool,
    pass_every: int,
    timeout_s: float,
    budget_words: int | None,
    scope_patterns: tuple[str, ...],
    limit_scopes: int,
    supersessions_sample: int,
    seed: int,
    embedding_cache: Path | None,
    as_json: bool,
) -> None:
    """Replay EVENTS through the pipeline, dream, then ask QUESTIONS of the curated memories and,
    as a baseline, of the raw transcripts; report the figures per category and overall."""
    from confluent_kafka import KafkaException

    from dreamstream_tools.evaluation.dataset import DatasetError, load_dataset, select_scopes
    from dreamstream_tools.evaluation.embedding_cache import persistent_embeddings
    from dreamstream_tools.evaluation.evaluate import evaluate
    from dreamstream_tools.evaluation.model_use import model_use, render_model_use, with_model
    from dreamstream_tools.evaluation.report import build_report, render_table
    from dreamstream_tools.evaluation.runner import RunError, run_passes
    from dreamstream_tools.evaluation.supersessions import sample_report
    from schemas.settings import get_settings

    logging.getLogger().setLevel(logging.WARNING)

    def say(message: str) -> None:
        click.echo(message, err=as_json)  # with --json, stdout carries only the report

    if pass_every and not direct:
        raise click.UsageError("--pass-every needs --direct (the pipeline's own trigger policy decides its passes)")
    started = time.perf_counter()
    try:
        with ExitStack() as stack:
            dataset = load_dataset(events, questions, memory_adds)
            if scope_patterns or limit_scopes:
                dataset = dataset.subset(select_scopes(dataset.scopes, scope_patterns, limit_scopes))
                if not direct:  # the pipeline replays files: write the selected events out
                    dataset = dataset.write_events(Path(stack.enter_context(tempfile.TemporaryDirectory())))
            settings = with_model(get_settings(), llm_base_url, llm_model)
            engine = engine or settings.engine
            say(
                f"{len(dataset.turns)} messages, {len(dataset.adds)} memory-adds, {len(dataset.questions)} questions "
                f"in {len(dataset.scopes)} scopes; dreaming {'directly' if direct else 'through the pipeline'} "
                f"with the {engine} engine"
            )
            disk = stack.enter_context(persistent_embeddings(embedding_cache, settings, say))
            run = stack.enter_context(
                run_passes(
                    dataset, settings, direct=direct, engine=engine, pass_every=pass_every, timeout_s=timeout_s, say=say
                )
            )
            asked = time.perf_counter()
            evaluation = evaluate(run.runtime, dataset, k, say, budget_words=budget_words)
            timings = {
                **run.timings,
                "evaluate_s": time.perf_counter() - asked,
                **{f"evaluate.{name}": value for name, value in evaluation.timings.items()},
            }
            passes = dict(run.pass_statuses)
            use = model_use(run.runtime, dataset.scopes)
    except (DatasetError, RunError, OSError, RuntimeError, KafkaException) as err:
        raise click.ClickException(_one_line(err)) from err
    timings["total_s"] = time.perf_counter() - started
    inputs: dict[str, object] = {
        "events": str(events),
        "memory_adds_file": str(memory_adds) if memory_adds else None,
        "questions_file": str(questions),
        "scopes": len(dataset.scopes),
        "turns": len(dataset.turns),
        "memory_adds": len(dataset.adds),
        "questions": len(dataset.questions),
    }
    if scope_patterns or limit_scopes:
        inputs["selected_scopes"] = dataset.scopes
    sampled = list(evaluation.store.supersessions)
    report = build_report(
        evaluation,
        mode="direct" if direct else "pipeline",
        engine=engine,
        inputs=inputs,
        passes=passes,
        timings=timings,
        supersessions=sample_report(sampled, supersessions_sample, seed) if supersessions_sample else None,
        embedding_cache=asdict(disk.figures) if disk is not None else None,
    )
    report["model_use"] = use
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
    else:
        click.echo(render_table(report))
        if engine == "llm":
            click.echo(render_model_use(use, settings.llm_model))


@click.command("eval-data")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seed", default=7, show_default=True, type=int)
@click.option(
    "--scopes", default=10, show_default=True, type=click.IntRange(min=2), help="scopes (pairs across two tenants)"
)
@click.option(
    "--messages", default=6000, show_default=True, type=click.IntRange(min=100), help="about this many messages in all"
)
def eval_data_command(out_dir: Path, seed: int, scopes: int, messages: int) -> None:
    """Write a deterministic synthetic evaluation set (events, memory_adds, questions .jsonl) to OUT_DIR."""
    from dreamstream_tools.evaluation.synth import generate

    data = generate(seed=seed, scopes=scopes, messages=messages)
    try:
        paths = data.write(out_dir)
    except OSError as err:
        raise click.ClickException(f"cannot write {out_dir}: {err.strerror or err}") from err
    click.echo(
        f"wrote {len(data.events)} messages, {len(data.memory_adds)} memory-adds and {len(data.questions)} "
        f"questions in {scopes} scopes to {out_dir}/ ({', '.join(p.name for p in paths.values())})"
    )


@click.command("eval-variant")
@click.argument("shape", type=click.Choice(["lower-case", "unprefixed", "joined"]))
@click.argument("from_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--role",
    "roles",
    multiple=True,
    help="lower-case: only these roles' messages (repeat; default: every message)",
)
def eval_variant_command(shape: str, from_dir: Path, out_dir: Path, roles: tuple[str, ...]) -> None:
    """Write FROM_DIR's evaluation set to OUT_DIR in another SHAPE: its messages in lower case, its
    name prefixes cut (two speakers as user and assistant), or its scopes joined by the person each
    user introduces themself as, sessions interleaved by date."""
    from dreamstream_tools.evaluation import variants

    try:
        rows = variants.read_set(from_dir)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    if not rows["events.jsonl"]:
        raise click.ClickException(f"{from_dir} holds no events.jsonl lines")
    if shape == "lower-case":
        rows["events.jsonl"] = variants.lower_cased(rows["events.jsonl"], frozenset(roles) or None)
    elif shape == "unprefixed":
        rows["events.jsonl"] = variants.unprefixed(rows["events.jsonl"])
    else:
        rows = variants.joined_by_person(rows)
    try:
        variants.write_set(out_dir, rows)
    except OSError as err:
        raise click.ClickException(f"cannot write {out_dir}: {err.strerror or err}") from err
    scopes = len({e["scope"] for e in rows["events.jsonl"]})
    click.echo(f"wrote {len(rows['events.jsonl'])} events in {scopes} scopes ({shape}) to {out_dir}/")


@click.group()
def _standalone() -> None:
    """The evaluation commands on their own (normally `dreamstream eval` / `dreamstream eval-data`)."""
    logging.basicConfig(level="WARNING", format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)


_standalone.add_command(eval_command)
_standalone.add_command(eval_data_command)
_standalone.add_command(eval_variant_command)

if __name__ == "__main__":
    _standalone()
