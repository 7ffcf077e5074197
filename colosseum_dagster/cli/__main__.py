from colosseum_dagster.cli import main

main()
