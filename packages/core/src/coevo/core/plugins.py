"""List the installed coevo plugins, their versions and what each registered.

Run ``python -m coevo.core.plugins`` (or ``coevo-plugins``). Exits 1 when a plugin failed to load.
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from coevo.core import registry


def main() -> int:
    records = registry.plugin_records()
    table = Table(title="coevo plugins (entry-point group coevo.plugins)")
    for column in ("distribution", "version", "status", "registered"):
        table.add_column(column)
    for record in records:
        if record.error:
            status, registered = "[red]failed[/red]", record.error
        else:
            status = "[green]ok[/green]"
            registered = ", ".join(f"{kind}:{name}" for kind, name in record.registered) or "-"
        table.add_row(record.distribution, record.version, status, registered)
    console = Console()
    console.print(table)
    return 1 if any(r.error for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
