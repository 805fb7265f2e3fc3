"""Where the shared example data lives: `shared/fixtures` beside the repo checkout. It is the
demo's default input and the tests' data; spelled here once so every user agrees."""

from pathlib import Path

# This file is <repo>/tools/dreamstream_tools/fixtures.py (the tools are installed editable).
FIXTURES_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
