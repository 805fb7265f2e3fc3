"""The API's routes, one module per concern; each gives `routes(ctx)`, a list of route definitions.

Scope routes live under `SCOPE_PATH`; the order of the lists is the order routes match in."""

SCOPE_PATH = "/scopes/{tenant}/{agent}/{subject}"
