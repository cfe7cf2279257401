"""The command line's helpers: its progress display and its HTML report."""
