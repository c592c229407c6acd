"""``python -m corefio``: the command line."""

from .cli import main

main()
