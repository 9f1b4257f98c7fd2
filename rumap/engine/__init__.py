"""The one chunk runner every engine's record-wise passes go through (:mod:`rumap.engine.runner`)."""

from rumap.engine.runner import ChunkRun, run_chunks

__all__ = ["ChunkRun", "run_chunks"]
