"""`python -m kvplan ...` runs the `kvplan` command line."""

from kvplan.cli import main

main()
