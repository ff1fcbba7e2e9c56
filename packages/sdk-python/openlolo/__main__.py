"""python3 -m openlolo: the openlolo-sdk command."""

from .cli import run

run()
