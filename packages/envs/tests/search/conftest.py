"""Shared builders for the search tests: environments with their index cache under tmp dirs,
and the real multi-hop QA data of ../shared/qa (read in place, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from coevo.envs.search.env import SearchEnv

settings.register_profile("coevo-envs", database=None)  # no .hypothesis/ folder in the working tree
settings.load_profile("coevo-envs")

# packages/envs/tests/search/conftest.py -> the repository root is parents[4]
SHARED_QA = (Path(__file__).resolve().parents[4] / "../shared/qa").resolve()


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("search-index"))


@pytest.fixture
def make_env(index_dir):
    """``make_env(**config overrides)`` → a SearchEnv whose indexes go to a session tmp dir."""

    def make(**overrides) -> SearchEnv:
        return SearchEnv(SearchEnv.Config(**({"index_dir": index_dir} | overrides)))

    return make


@pytest.fixture(scope="session")
def shared_qa() -> Path:
    if not (SHARED_QA / "corpus.jsonl").is_file():
        pytest.skip(f"the real QA data is not at {SHARED_QA} (shared/qa is absent on this machine)")
    return SHARED_QA
