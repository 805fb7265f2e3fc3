"""The one language layer: how dreamstream reads English text.

Everything that decides what a piece of conversation *says* lives here, so the stream worker's
cheap signal extraction, the dream-pass phases and the offline engine read text the same way:
who is speaking (`speakers`), which sentences carry facts and which are chatter (`chatter`),
relative times resolved to absolute dates (`dates`), and tokens for lexical search (`tokens`).
No module here imports from `streams/` or `consumers/`; they import from it.
"""
