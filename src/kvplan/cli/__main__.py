"""`python -m kvplan.cli ...`: the `kvplan` console script, where that script is not on PATH (as `python -m kvplan`)."""

from kvplan.cli import main

if __name__ == "__main__":
    main()
