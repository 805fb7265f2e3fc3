"""The one language layer: how dreamstream reads English text.

Everything that decides what a piece of conversation *says* lives here, so the stream worker's
cheap signal extraction, the dream-pass phases and the offline engine read text the same way:
the shared regex sources (`patterns`, in the dialect Python's `re` and polars both accept), what a
clause does, a correction, a decision, a question... (`clauses`), the value a correction changes
(`changes`), instruction-like text (`injection`), the user's name and first person rewritten
(`person`), who is speaking (`speakers`), which sentences carry facts and which are chatter
(`chatter`), relative times resolved to absolute dates (`dates`), and tokens for lexical search
(`tokens`). No module here imports from `streams/` or `consumers/` (only `schemas/`, the
contracts); they import from it.
"""
