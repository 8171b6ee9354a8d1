from strategylens.cli import main

main()
