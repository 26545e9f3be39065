"""numpy's OpenBLAS held to one thread (mockengine/engines/blas.py): its idle pool spun 0.29 of a core
at 40 talking WebRTC calls (docs/webrtc.md, "Tenth pass")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from mockengine.engines import fingerprint
from mockengine.engines.blas import blas_threads, limit_blas_threads

# In a fresh interpreter: OpenBLAS starts with one thread per core (OPENBLAS_NUM_THREADS unset), so the
# limit is seen to act whatever this test process was started with.
SCRIPT = """
import json
from mockengine.engines.blas import blas_threads, limit_blas_threads
print(json.dumps([limit_blas_threads(1), blas_threads()]))
"""


def test_the_limit_holds_a_fresh_process_to_one_thread():
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env["OPENBLAS_NUM_THREADS"] = "2"  # as on the 2-core bench machine, whatever this machine has
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, check=True)
    before, after = json.loads(out.stdout)
    assert before == [2], out.stdout  # numpy's OpenBLAS was found and asked
    assert after == [1]


def test_fingerprints_are_the_same_bits_on_one_thread():
    """The cut changes no result: a fingerprint's codes and levels on one thread equal those on many."""
    rng = np.random.default_rng(7)
    pcm = (rng.normal(0, 3000, 24_000 * 3)).astype("<i2").tobytes()
    limit_blas_threads(2)
    many = fingerprint.query_prints(pcm)
    limit_blas_threads(1)
    one = fingerprint.query_prints(pcm)
    for a, b in zip(many, one, strict=True):
        assert np.array_equal(a.codes, b.codes) and np.array_equal(a.levels, b.levels)
    assert blas_threads() in ([1], [])
