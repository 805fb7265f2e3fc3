"""How the `dreamstream` command finds its subcommands: the runtime's own, then the ones installed
distributions declare in the `dreamstream.commands` entry-point group (the development tools in
tools/), and, for a development command that is not installed, a stand-in that says how to get it.

These run in-process with click's runner; "not installed" is made by hiding the entry points and
making `dreamstream_tools` unimportable."""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dreamstream import cli

REPO = Path(__file__).resolve().parents[3]
TOOLS_PYPROJECT = tomllib.loads((REPO / "tools" / "pyproject.toml").read_text())


def run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli.main, list(args), prog_name="dreamstream")


@pytest.fixture
def without_tools(monkeypatch):
    """As on a machine with the runtime only: no entry points, and no dreamstream_tools to import."""
    monkeypatch.setattr(cli, "installed_commands", lambda: {})
    for name in [m for m in sys.modules if m == "dreamstream_tools" or m.startswith("dreamstream_tools.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dreamstream_tools", None)  # any import of it raises ImportError


def test_the_tools_declare_exactly_the_development_commands() -> None:
    declared = TOOLS_PYPROJECT["project"]["entry-points"][cli.COMMANDS_ENTRY_POINTS]
    assert set(declared) == set(cli.DEV_COMMANDS)
    assert all(target.startswith("dreamstream_tools.") for target in declared.values())


def test_installed_tools_commands_are_found_through_their_entry_points() -> None:
    installed = cli.installed_commands()
    assert set(cli.DEV_COMMANDS) <= set(installed), "install the tools: python3 -m pip install -e ./tools"
    for name in cli.DEV_COMMANDS:
        command = cli.main.get_command(click.Context(cli.main), name)
        assert command.name == name and type(command).__module__.startswith("click")
        assert command.callback.__module__.startswith("dreamstream_tools.")
    listing = run("--help")
    assert listing.exit_code == 0 and "not installed" not in listing.output
    assert all(f"  {name} " in listing.output for name in cli.DEV_COMMANDS)


def test_demo_help_comes_from_the_tools() -> None:
    result = run("demo", "--help")
    assert result.exit_code == 0 and "--json" in result.output and "EVENT_FILES" in result.output


@pytest.mark.parametrize("args", [["demo"], ["demo", "--json", "events.jsonl"], ["kafka", "start"], ["eval", "--help"]])
def test_without_the_tools_a_dev_command_says_how_to_install_them(without_tools, args) -> None:
    result = run(*args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: `dreamstream {args[0]}` is a development command")
    assert "python3 -m pip install -e ./tools" in lines[0]


def test_without_the_tools_help_lists_the_dev_commands_as_not_installed(without_tools) -> None:
    result = run("--help")
    assert result.exit_code == 0, result.output
    listed = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("  ") and line.split()}
    for name in cli.DEV_COMMANDS:
        assert "not installed" in listed[name]
    assert "not installed" not in listed["worker"] and "not installed" not in listed["memories"]


def test_without_the_tools_the_runtime_commands_still_work(without_tools) -> None:
    result = run("settings", "show", "--json")
    assert result.exit_code == 0, result.output
    assert not [m for m in sys.modules if m.startswith("dreamstream_tools.")]


def test_an_entry_point_that_cannot_be_imported_fails_in_one_line(monkeypatch) -> None:
    broken = EntryPoint("demo", "dreamstream_tools_missing.cli:demo", cli.COMMANDS_ENTRY_POINTS)
    monkeypatch.setattr(cli, "installed_commands", lambda: {"demo": broken})
    result = run("demo")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: cannot load `dreamstream demo` (dreamstream_tools_missing.cli:demo): "
        "No module named 'dreamstream_tools_missing'"
    ]


def test_a_builtin_command_keeps_its_name(monkeypatch) -> None:
    other = EntryPoint("worker", "dreamstream_tools.cli_demo:demo", cli.COMMANDS_ENTRY_POINTS)
    monkeypatch.setattr(cli, "installed_commands", lambda: {"worker": other})
    assert cli.main.get_command(click.Context(cli.main), "worker") is cli.worker


def test_an_unknown_command_is_still_unknown(without_tools) -> None:
    result = run("nope")
    assert result.exit_code == 2 and "No such command 'nope'" in result.output
