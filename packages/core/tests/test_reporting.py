"""The end-of-run success table: only the columns that have values."""

from rich.console import Console

from coevo.core.reporting import success_table

BEFORE = {"success": 0.25, "success/a": 0.5, "success/b": 0.0}
AFTER = {"success": 0.5, "success/a": 0.75, "success/b": 0.25, "greedy/success": 0.0}


def _render(table) -> tuple[list[str], str]:
    console = Console(width=200, record=True)
    console.print(table)
    return [c.header for c in table.columns], console.export_text()


def test_before_and_after_give_before_after_change():
    headers, text = _render(success_table(BEFORE, AFTER, "t"))
    assert headers == ["task type", "before", "after", "change"]
    assert "25.0%" in text and "50.0%" in text and "+25.0%" in text
    headers, _ = _render(success_table(AFTER, AFTER, "t"))
    assert headers[-1] == "change"


def test_a_lone_evaluation_has_one_column():
    headers, text = _render(success_table(None, AFTER, "t", single="success"))
    assert headers == ["task type", "success"]
    assert "ALL, greedy" in text and "-" not in text.replace("─", "").replace("━", "")
    assert [c.header for c in success_table(None, AFTER, "t").columns] == ["task type", "after"]
    assert [c.header for c in success_table(BEFORE, None, "t").columns] == ["task type", "before"]
