"""HTML for scripts/report.py: escaping helpers and the page's sections, drawn from run.json."""
