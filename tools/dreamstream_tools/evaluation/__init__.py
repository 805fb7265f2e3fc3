"""`dreamstream eval`: measure what dreaming does to an agent's memory.

One job per module: `dataset` (read and validate the JSONL inputs), `runner` (dream through the
real pipeline or directly on per-scope snapshots), `matching` (answer, date and relative-time
matching), `metrics` (pure metric functions), `baseline` (the same questions against the raw
transcripts), `evaluate` (per-question results and the aggregate report), `report` (table and
JSON), `synth` (a deterministic synthetic data set).
"""
