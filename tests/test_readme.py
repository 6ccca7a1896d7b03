"""The README is the user's first page: at most 10 KB, and every relative link in it names a file that exists."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
LIMIT_BYTES = 10_000  # issue 44 (10 KB, read strictly): details live in the documentation site, not here
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")  # [text](target#anchor) -> target


def test_readme_is_at_most_10_kb():
    size = len(README.read_bytes())
    assert size <= LIMIT_BYTES, f"README.md is {size:,} bytes (limit {LIMIT_BYTES:,}): move details to docs/"


def test_every_relative_link_exists():
    targets = [t for t in LINK.findall(README.read_text()) if "://" not in t]
    assert targets, "the README links to its documentation"
    missing = [t for t in targets if not (REPO / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
