"""`python -m kvplan ...` runs the `kvplan` command line."""

from kvplan.cli import main

if __name__ == "__main__":  # as kvplan/cli/__main__.py: importing the module runs nothing
    main()
