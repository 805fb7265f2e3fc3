"""The `dreamstream` command starts quickly: `--version` and `--help` import no subcommand, no
settings and no pydantic, a read command over the HTTP API no Qdrant client, and the listing
`--help` prints from the short help kept in `dreamstream/cli.py` says what each command's own help
says. (How long they take is printed by `python -m bench.cli`, not asserted here.)"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from click.testing import CliRunner
from click.utils import make_default_short_help

from dreamstream import cli

HEAVY = ("pydantic", "schemas", "consumers", "dreaming", "qdrant_client", "httpx", "mcp", "confluent_kafka", "numpy")


def imported_by(*code: str) -> set[str]:
    """The top-level packages a fresh interpreter imports to run `code` (python -X importtime)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "\n".join(code)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    names = set()
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.parametrize("argument", ["--version", "--help"])
def test_version_and_help_import_no_subcommand(argument):
    run = f"import sys; sys.argv = ['dreamstream', '{argument}']; from dreamstream.cli import main; main()"
    loaded = imported_by("import sys", f"try:\n    exec({run!r})\nexcept SystemExit:\n    pass")
    assert "dreamstream" in loaded and "click" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_a_read_command_over_the_api_loads_no_store():
    loaded = imported_by("import dreamstream.cli_read, dreamstream.cli_ops, dreamstream.client")
    assert "httpx" in loaded and "schemas" in loaded
    assert not loaded & {"qdrant_client", "onnxruntime", "tokenizers", "litellm", "mcp"}, loaded


def test_the_listing_says_what_each_lazy_command_says_of_itself():
    assert set(cli.LAZY_HELP) == set(cli.LAZY_COMMANDS)
    for name, target in cli.LAZY_COMMANDS.items():
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert command.get_short_help_str(1_000) == make_default_short_help(cli.LAZY_HELP[name], 1_000), name


def test_help_lists_every_command_once():
    result = CliRunner().invoke(cli.main, ["--help"], prog_name="dreamstream")
    assert result.exit_code == 0, result.output
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(set(listed)) and set(cli.LAZY_COMMANDS) | set(cli.DEV_COMMANDS) | {"worker"} <= set(listed)
