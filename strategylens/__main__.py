"""python -m strategylens: the command line."""

from strategylens.cli import main

main()
