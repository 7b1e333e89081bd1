"""Command-line entry point, REPL and batch mode."""
