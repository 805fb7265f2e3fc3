"""`dreamstream eval`: measure what dreaming does to an agent's memory.

One job per module: `dataset` (read and validate the JSONL inputs, choose scopes), `runner` (dream
through the real pipeline or directly on per-scope snapshots), `matching` (answer, date and
relative-time matching), `metrics` (pure metric functions), `baseline` (the same questions against
the raw history, dated as a retrieval tool shows it), `budget` (equal reading cost), `evaluate`
(per-question results), `report` (the JSON), `table` (the same as text), `supersessions` (which
memory replaced which, sampled for judging by hand), `embedding_cache` (an opt-in on-disk vector
cache for repeated runs), `synth` (a deterministic synthetic data set).
"""
