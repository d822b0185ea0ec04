"""Drawing code behind scripts/plot.py, split by experiment family so each file stays short."""
