"""``metrics.jsonl`` on resume: rows after the resumed step go, a torn last line is repaired."""

from types import SimpleNamespace

from coevo.core.callbacks.metrics_history import MetricsHistory, read_rows


def test_a_torn_last_line_is_dropped_and_later_rows_trimmed(tmp_path):
    path = tmp_path / "metrics.jsonl"
    # steps 1-3 written whole, step 4 cut off mid-write by a kill -9
    path.write_text('{"step": 1, "train/reward": 0.5}\n{"step": 2, "train/reward": 0.25}\n'
                    '{"step": 3, "train/reward": 1.0}\n{"step": 4, "train/rew')
    assert read_rows(path) == ([{"step": 1, "train/reward": 0.5}, {"step": 2, "train/reward": 0.25},
                                {"step": 3, "train/reward": 1.0}], 1)
    history = MetricsHistory(path)
    history.on_train_start(SimpleNamespace(is_global_zero=True, global_step=2), None)  # resumed at step 2
    assert path.read_text() == '{"step": 1, "train/reward": 0.5}\n{"step": 2, "train/reward": 0.25}\n'
    module = SimpleNamespace(step_metrics={"train/reward": 0.75})
    history.on_train_batch_end(SimpleNamespace(is_global_zero=True, global_step=3), module, None, None, 0)
    assert read_rows(path) == ([{"step": 1, "train/reward": 0.5}, {"step": 2, "train/reward": 0.25},
                                {"step": 3, "train/reward": 0.75}], 0)
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.jsonl"]  # no temporary file left


def test_garbage_lines_are_skipped_not_fatal(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text('[1, 2]\n\x00\x00\n{"step": 1}\n{"no_step": true}\n')
    assert read_rows(path) == ([{"step": 1}], 3)
