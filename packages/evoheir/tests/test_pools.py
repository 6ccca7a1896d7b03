"""Pools are disjoint by construction (regions) and by check (every draw)."""

import pytest

from coevo.core.testing.boxes_env import BoxesEnv
from coevo.evoheir.pools import (
    IndexRegion,
    PoolLedger,
    PoolOverlapError,
    check_regions,
    require_unbounded_train,
)


def _ledger():
    regions = [IndexRegion("training", "train", 0, 100), IndexRegion("screening", "train", 1000, 1010),
               IndexRegion("confirmation", "train", 2000, 2010)]
    return PoolLedger(BoxesEnv(), regions)


def test_draws_are_fresh_and_inside_their_region():
    ledger = _ledger()
    first, second = ledger.draw("confirmation", 4), ledger.draw("confirmation", 4)
    assert [t.index for t in first] == [2000, 2001, 2002, 2003]
    assert [t.index for t in second] == [2004, 2005, 2006, 2007]
    assert {t.index for t in ledger.draw("screening", 10)} == set(range(1000, 1010))
    with pytest.raises(PoolOverlapError, match="exhausted"):
        ledger.draw("confirmation", 3)  # only 2 of the region's 10 items are left


def test_overlapping_regions_fail_at_startup():
    with pytest.raises(PoolOverlapError, match="'training' \\[0, 100\\) and 'confirmation' \\[50, 60\\)"):
        check_regions([IndexRegion("training", "train", 0, 100), IndexRegion("confirmation", "train", 50, 60)])
    check_regions([IndexRegion("a", "train", 0, 100), IndexRegion("b", "eval_in_distribution", 0, 100)])
    with pytest.raises(PoolOverlapError, match="empty"):
        check_regions([IndexRegion("a", "train", 5, 5)])


def test_reuse_across_pools_fails_loudly():
    ledger = _ledger()
    env = ledger.env
    ledger.mark_used("training", [env.task("train", 3)])
    ledger.mark_used("training", [env.task("train", 3)])  # training replays a batch after a rollback
    with pytest.raises(PoolOverlapError, match="outside the 'training' region"):
        ledger.mark_used("training", [env.task("train", 2000)])
    # a corrupted cursor that walks the confirmation pool into screening items is caught
    ledger.cursor["confirmation"] = 1005
    with pytest.raises(PoolOverlapError, match="lies in the 'screening' region"):
        ledger.draw("confirmation", 2)


def test_finite_train_split_is_refused():
    class Finite(BoxesEnv):
        def num_tasks(self, split):
            return 12

    with pytest.raises(PoolOverlapError, match="finite train split"):
        require_unbounded_train(Finite(), "x")
    require_unbounded_train(BoxesEnv(), "x")


def test_ledger_state_carries_cursors_and_used_items():
    ledger = _ledger()
    ledger.draw("confirmation", 4)
    state = ledger.state_dict()
    resumed = _ledger()
    resumed.load_state_dict(state)
    assert [t.index for t in resumed.draw("confirmation", 2)] == [2004, 2005]  # not 2000 again
    assert resumed.used[("train", 2000)] == "confirmation"
