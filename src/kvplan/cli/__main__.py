"""`python -m kvplan.cli ...` runs the `kvplan` command line, as `python -m kvplan` does."""

from kvplan.cli import main

main()
