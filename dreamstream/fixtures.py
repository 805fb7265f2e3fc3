"""Where the shared example data lives: `shared/fixtures` beside the repo checkout. It is the
demo's default input and the tests' data; spelled here once so every user agrees."""

from pathlib import Path

FIXTURES_DIR = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
